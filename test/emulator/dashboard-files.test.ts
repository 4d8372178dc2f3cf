import Fastify from 'fastify';
import { describe, expect, it, onTestFinished } from 'vitest';
import dashboardRoutes from '../../emulator/dashboard/routes.js';
import { dashboardDir } from '../../emulator/dashboard/files.js';
import { SHARED_SCHEMAS } from '#contract';
import { emulatorInternals } from '../../emulator/internals.js';
import { emulator } from '../kit/index.js';

describe('the dashboard files', () => {
  it('come from dist/dashboard of the package, found from the source tree too', () => {
    expect(dashboardDir()).toMatch(/\/dist\/dashboard$/);
  });

  it('missing (no build): a 503 page that says to run npm run build, with the security headers still on', async () => {
    const emu = await emulator();
    const app = Fastify();
    for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
    await app.register(dashboardRoutes, {
      services: emulatorInternals(emu),
      logins: emulatorInternals(emu).admin.logins,
      filesDir: '/nonexistent/dashboard',
      prefix: '/_emulator',
    });
    onTestFinished(() => app.close());
    for (const url of ['/_emulator/dashboard/', '/_emulator/dashboard/app.js']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(503);
      expect(res.body).toContain('npm run build');
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });
});
