import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

// AUDIT of #16 "Done when": no `as any` / `as never` / `as unknown as` (nor `request.body as`,
// `request.query as`, `request.params as`) in route handlers or commands, and no wire type restated
// outside the contract. The delivery views of src/dev restate Delivery, DeliveryAttempt and
// DeliveryAttemptNotice by hand, and three command/trigger casts exist only to convert between the two.

const root = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : /\.tsx?$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

const CAST = /\bas (any|never|unknown as)\b|request\.(body|query|params) as\b/;

describe('#16: typed from the contract (audit)', () => {
  test('no casts in route handlers or commands', () => {
    const routeFiles = ['emulator/api', 'emulator/admin', 'emulator/messaging', 'emulator/uploads']
      .flatMap((dir) => sources(join(root, dir)))
      .filter((file) => !/service\.ts$/.test(file) && !file.includes('/uploads/storage/'));
    const hits = [...routeFiles, ...sources(join(root, 'src/commands'))].flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) =>
          CAST.test(line) ? `${relative(root, file)}:${i + 1}: ${line.trim()}` : null,
        )
        .filter((x): x is string => x !== null),
    );
    expect(hits).toEqual([]);
  });

  test('the delivery log is not restated outside the contract (src/dev/delivery-view.ts)', () => {
    const text = readFileSync(join(root, 'src/dev/delivery-view.ts'), 'utf8');
    const restated = [
      ...text.matchAll(/export interface (DeliveryView|AttemptView|AttemptNotice)\b/g),
    ].map((m) => m[1]);
    expect(
      restated,
      'use Delivery, DeliveryAttempt and DeliveryAttemptNotice of src/contract',
    ).toEqual([]);
  });
});
