import { describe, expect, test } from 'vitest';
import { Ajv } from 'ajv';
import {
  FileSchema,
  FileStatusSchema,
  FILE_STATUSES,
  Nullable,
  Ok,
  OkPage,
  Params,
  PARENT_TYPES,
  PLUGIN_TYPES,
  PluginSchema,
} from '#contract';
import {
  FILE_STATUSES as UPLOAD_FILE_STATUSES,
  PARENT_TYPES as UPLOAD_PARENT_TYPES,
} from '../../emulator/uploads/rules.js';

describe('the contract’s schema builders', () => {
  // Route modules call these as they register, once per start: the same object for the same
  // argument is what lets the compilers' per-schema caches serve every later start of the process.
  test('Ok, OkPage and Params give the same schema object for the same argument, and another for another', () => {
    expect(Ok(PluginSchema)).toBe(Ok(PluginSchema));
    expect(OkPage(PluginSchema)).toBe(OkPage(PluginSchema));
    expect(Params('pluginId', 'name')).toBe(Params('pluginId', 'name'));
    expect(Ok(FileSchema)).not.toBe(Ok(PluginSchema));
    expect(OkPage(FileSchema)).not.toBe(OkPage(PluginSchema));
    expect(Params('pluginId')).not.toBe(Params('pluginId', 'name'));
    expect(Params('pluginId', 'name')).not.toBe(Params('name', 'pluginId'));
    expect(Object.keys(Params('pluginId', 'name').properties)).toEqual(['pluginId', 'name']);
    const validate = new Ajv({ strict: false }).compile(Ok(PluginSchema));
    expect(validate({ ok: true })).toBe(false);
  });

  test('a nullable enum admits null and its values, nothing else', () => {
    const validate = new Ajv({ strict: false }).compile(Nullable(FileStatusSchema));
    expect(validate(null)).toBe(true);
    for (const status of FILE_STATUSES) expect(validate(status)).toBe(true);
    expect(validate('DONE')).toBe(false);
  });

  test('a new upload (status and parent type null) matches the File schema', () => {
    const now = new Date().toISOString();
    const file = {
      id: 'file_1',
      fileName: 'a.txt',
      contentType: null,
      fileSize: null,
      isPublic: false,
      status: null,
      errorMessage: null,
      parentId: null,
      parentType: null,
      folder: null,
      orgId: 'org_1',
      createdAt: now,
      updatedAt: now,
    };
    const validate = new Ajv({ strict: false, allErrors: true })
      .addFormat('date-time', true)
      .compile(FileSchema);
    expect(validate(file), JSON.stringify(validate.errors)).toBe(true);
  });

  test('the upload rules use the contract’s lists themselves', () => {
    expect(UPLOAD_FILE_STATUSES).toBe(FILE_STATUSES);
    expect(UPLOAD_PARENT_TYPES).toBe(PARENT_TYPES);
    expect(PLUGIN_TYPES).toContain('EVENT_HANDLER');
  });
});
