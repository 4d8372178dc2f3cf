import { listHandler } from './definitions.js';
import { ACTIONS } from './kind.js';

/** `plugsmith actions list`. */
export default listHandler(ACTIONS);
