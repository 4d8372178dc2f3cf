import { deleteHandler } from './definitions.js';
import { ACTIONS } from './kind.js';

/** `plugsmith actions delete`. */
export default deleteHandler(ACTIONS);
