import { describe, expect, test } from 'vitest';
import { Ajv } from 'ajv';
import { FileSchema, FileStatusSchema, FILE_STATUSES, Nullable, PARENT_TYPES, PLUGIN_TYPES } from '../../src/contract/index.js';
import { FILE_STATUSES as UPLOAD_FILE_STATUSES, PARENT_TYPES as UPLOAD_PARENT_TYPES } from '../../emulator/uploads/rules.js';
import { FILE_STATUSES as CLI_FILE_STATUSES } from '../../src/commands/files/statuses.js';

describe('the contract’s schema builders', () => {
  test('a nullable enum admits null and its values, nothing else', () => {
    const validate = new Ajv({ strict: false }).compile(Nullable(FileStatusSchema));
    expect(validate(null)).toBe(true);
    for (const status of FILE_STATUSES) expect(validate(status)).toBe(true);
    expect(validate('DONE')).toBe(false);
  });

  test('a new upload (status and parent type null) matches the File schema', () => {
    const now = new Date().toISOString();
    const file = {
      id: 'file_1', fileName: 'a.txt', contentType: null, fileSize: null, isPublic: false, status: null, errorMessage: null,
      parentId: null, parentType: null, folder: null, orgId: 'org_1', createdAt: now, updatedAt: now,
    };
    const validate = new Ajv({ strict: false, allErrors: true }).addFormat('date-time', true).compile(FileSchema);
    expect(validate(file), JSON.stringify(validate.errors)).toBe(true);
  });

  test('the upload rules and the CLI use the contract’s lists themselves', () => {
    expect(UPLOAD_FILE_STATUSES).toBe(FILE_STATUSES);
    expect(UPLOAD_PARENT_TYPES).toBe(PARENT_TYPES);
    expect(CLI_FILE_STATUSES).toBe(FILE_STATUSES);
    expect(PLUGIN_TYPES).toContain('EVENT_HANDLER');
  });
});
