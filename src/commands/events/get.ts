import { getHandler } from '../actions/definitions.js';
import { EXTERNAL_EVENTS } from './kind.js';

/** `plugsmith events get`. */
export default getHandler(EXTERNAL_EVENTS);
