import { afterAll } from 'vitest';
import { closeFileScope } from './scope.js';

// vitest setupFiles: evaluated again before every test file, also when files share a worker
// (`isolate: false`). Registered before anything the file registers, this afterAll runs after the
// file's own afterAll hooks (vitest runs them last-registered first), which may still use what the
// kit started.
afterAll(closeFileScope);
