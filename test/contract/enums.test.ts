import { describe, expect, test } from 'vitest';
import manifestSchema from '../../plugsmith.schema.json' with { type: 'json' };
import {
  DISPATCH_MODES,
  ERROR_STATUS,
  ERROR_TYPE_BY_STATUS,
  EVENT_KINDS,
  PLUGIN_TYPES,
  SCOPES,
} from '#contract';
import { EVENT_TYPES } from '../../src/shared/webhooks/events.js';
import { TEMPLATES } from '../../src/project/plugin-types.js';
import {
  EVENT_KINDS as EMULATOR_EVENT_KINDS,
  PLUGIN_TYPES as EMULATOR_PLUGIN_TYPES,
} from '../../emulator/model.js';

// The published manifest schema is a JSON file (editors read it as it is); it must list the contract's enums.
describe('one definition of each enum', () => {
  const plugin = (manifestSchema as any).properties.plugin.properties;

  test('the manifest schema lists the contract’s plugin types, events and scopes', () => {
    expect(plugin.type.enum).toEqual([...PLUGIN_TYPES]);
    expect(plugin.events.items.enum).toEqual([...EVENT_KINDS]);
    expect(plugin.scopes.items.enum).toEqual([...SCOPES]);
    expect(JSON.stringify(manifestSchema)).toContain(JSON.stringify([...DISPATCH_MODES]));
  });

  test('the emulator, the webhooks library and the templates use the contract’s lists themselves', () => {
    expect(EVENT_TYPES).toBe(EVENT_KINDS);
    expect(EMULATOR_EVENT_KINDS).toBe(EVENT_KINDS);
    expect(EMULATOR_PLUGIN_TYPES).toBe(PLUGIN_TYPES);
    expect(Object.keys(TEMPLATES)).toEqual([...PLUGIN_TYPES]);
  });

  test('the status of each error type and the type of each status are one table', () => {
    for (const [type, status] of Object.entries(ERROR_STATUS))
      expect(ERROR_TYPE_BY_STATUS[status]).toBe(type);
  });
});
