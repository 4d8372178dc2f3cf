import { updateHandler } from '../actions/definitions.js';
import { EXTERNAL_EVENTS } from './kind.js';

/** `plugsmith events update`. */
export default updateHandler(EXTERNAL_EVENTS);
