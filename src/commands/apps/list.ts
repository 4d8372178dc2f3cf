import { listHandler } from '../installs/handlers.js';
import { INSTALL_KINDS } from '../installs/kinds.js';

export default listHandler(INSTALL_KINDS.apps);
