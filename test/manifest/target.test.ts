import { MockAgent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { describe, expect, onTestFinished, test } from 'vitest';
import { identifyTarget } from '../../src/manifest/target.js';
import { emulatorRunningAt } from '../kit/emulator-state.js';

describe('the target of a deploy', () => {
  test('a running emulator is recognised by its store however its URL is spelled (case, default port, trailing slash)', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('http://devbox.test')
      .intercept({ path: '/_emulator/health', method: 'GET' })
      .reply(200, { data: { storeId: 'st_devbox' } })
      .persist();
    const previous = getGlobalDispatcher();
    setGlobalDispatcher(agent);
    onTestFinished(() => setGlobalDispatcher(previous));
    await emulatorRunningAt('http://devbox.test');

    for (const url of ['http://devbox.test', 'http://DEVBOX.test/', 'http://devbox.test:80']) {
      expect(await identifyTarget(url), url).toEqual({ storeId: 'st_devbox', baseUrl: url });
    }
    expect(await identifyTarget('http://other.test')).toEqual({
      storeId: null,
      baseUrl: 'http://other.test',
    });
  });
});
