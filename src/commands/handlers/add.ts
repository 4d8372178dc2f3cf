import { addHandler } from '../installs/handlers.js';
import { INSTALL_KINDS } from '../installs/kinds.js';

export default addHandler(INSTALL_KINDS.handlers);
