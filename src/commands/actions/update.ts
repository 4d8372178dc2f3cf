import { updateHandler } from './definitions.js';
import { ACTIONS } from './kind.js';

/** `plugsmith actions update`. */
export default updateHandler(ACTIONS);
