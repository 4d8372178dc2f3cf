import { createHandler } from './definitions.js';
import { ACTIONS } from './kind.js';

/** `plugsmith actions create`. */
export default createHandler(ACTIONS);
