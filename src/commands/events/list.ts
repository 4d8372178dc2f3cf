import { listHandler } from '../actions/definitions.js';
import { EXTERNAL_EVENTS } from './kind.js';

/** `plugsmith events list`. */
export default listHandler(EXTERNAL_EVENTS);
