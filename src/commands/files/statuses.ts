/** The statuses `files status` accepts (checked in the handler so the error names the argument). */
export { FILE_STATUSES } from '../../contract/enum-values.js';
