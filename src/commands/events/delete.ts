import { deleteHandler } from '../actions/definitions.js';
import { EXTERNAL_EVENTS } from './kind.js';

/** `plugsmith events delete`. */
export default deleteHandler(EXTERNAL_EVENTS);
