/** The statuses `files status` accepts (checked in the handler so the error names the argument). */
export const FILE_STATUSES = ['UPLOADED', 'FAILED', 'PROCESSING', 'COMPLETED'];
