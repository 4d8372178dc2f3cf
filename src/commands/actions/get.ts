import { getHandler } from './definitions.js';
import { ACTIONS } from './kind.js';

/** `plugsmith actions get`. */
export default getHandler(ACTIONS);
