import { removeHandler } from '../installs/handlers.js';
import { INSTALL_KINDS } from '../installs/kinds.js';

export default removeHandler(INSTALL_KINDS.handlers);
