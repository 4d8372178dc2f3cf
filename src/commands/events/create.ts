import { createHandler } from '../actions/definitions.js';
import { EXTERNAL_EVENTS } from './kind.js';

/** `plugsmith events create`. */
export default createHandler(EXTERNAL_EVENTS);
