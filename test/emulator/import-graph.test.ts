import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { circles, importGraph } from '../kit/import-graph.js';

/**
 * The emulator's layering (docs/architecture.md), checked over the real import graph: no route module
 * imports another route module (shared lookups live in helpers, changes in services: the files
 * named `service.ts` or `*-service.ts` in each feature's folder),
 * and no module of emulator/ reaches itself again through its imports (type-only imports
 * included: a circle of types is a circle of knowledge all the same).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../emulator');

/**
 * A route module registers routes: it calls get/post/put/patch/delete/route on a FastifyInstance it
 * declares, or on the typed view of one (`const app = typed(fastify)`).
 */
function isRouteModule(_file: string, text: string): boolean {
  const declared = [...text.matchAll(/\b([A-Za-z_$][\w$]*)\s*:\s*FastifyInstance\b/g)].map(
    (m) => m[1],
  );
  const typedViews = [
    ...text.matchAll(
      /\b(?:const|let)\s+([A-Za-z_$][\w$]*)\s*=\s*typed\(\s*([A-Za-z_$][\w$]*)\s*\)/g,
    ),
  ]
    .filter((m) => declared.includes(m[2]))
    .map((m) => m[1]);
  const apps = [...declared, ...typedViews];
  return apps.some((app) =>
    new RegExp(
      `\\b${app.replace(/\$/g, '\\$')}\\.(get|post|put|patch|delete|head|options|route)\\(`,
    ).test(text),
  );
}

const { files, texts, graph } = importGraph([ROOT]);
const name = (f: string) => relative(ROOT, f);
/** A service: the only kind of module that changes the store (routes call it). */
const isService = (f: string) => /(^|\/|-)service\.ts$/.test(name(f));

describe('the emulator import graph', () => {
  test('the graph is read: route modules are found and import the services', () => {
    const routes = files.filter((f) => isRouteModule(f, texts.get(f)!));
    expect(routes.length).toBeGreaterThan(5);
    expect(files.filter(isService).length).toBeGreaterThan(8);
    expect(routes.some((f) => graph.get(f)!.some(isService))).toBe(true);
  });

  test('no route module imports another route module', () => {
    const offending = files
      .filter((f) => isRouteModule(f, texts.get(f)!))
      .flatMap((f) =>
        graph
          .get(f)!
          .filter((t) => isRouteModule(t, texts.get(t)!))
          .map((t) => `${name(f)} -> ${name(t)}`),
      );
    expect(offending).toEqual([]);
  });

  test('the services import no route module (routes call services, never the reverse)', () => {
    const offending = files.filter(isService).flatMap((f) =>
      graph
        .get(f)!
        .filter((t) => isRouteModule(t, texts.get(t)!))
        .map((t) => `${name(f)} -> ${name(t)}`),
    );
    expect(offending).toEqual([]);
  });

  test('route modules write nothing to the store themselves: every change goes through a service', () => {
    const writes =
      /\b(?:db\.\w+|collection)\.(?:put|delete)\(|\.atomically\(|\bstore\.(?:clear|compact|prepareReplace)\(/;
    const offending = files
      .filter((f) => isRouteModule(f, texts.get(f)!) && writes.test(texts.get(f)!))
      .map(name);
    expect(offending).toEqual([]);
  });

  test('no module but a service writes to the store (the store itself aside)', () => {
    // The store implements the writes; the delivery log is webhooks/delivery-service.ts.
    const exempt = (f: string) => isService(f) || name(f).startsWith('store/');
    const writes =
      /\b(?:db\.\w+|collection)\.(?:put|delete)\(|\.atomically\(|\bstore\.(?:clear|compact|prepareReplace)\(/;
    const offending = files.filter((f) => !exempt(f) && writes.test(texts.get(f)!)).map(name);
    expect(offending).toEqual([]);
  });

  test('emulator/ has no import circle', () => {
    expect(circles(graph, ROOT)).toEqual([]);
  });
});
