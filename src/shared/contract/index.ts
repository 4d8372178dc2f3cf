// The wire contract, defined once: route schemas, serialization, the client's types and the OpenAPI document derive from it.
export * from './schema.js';
export * from './enums.js';
export * from './installs.js';
export * from './envelope.js';
export * from './resources.js';
export * from './requests.js';
export * from './events.js';
export * from './seed.js';
export * from './admin-data.js';
export * from './dashboard.js';
export * from './admin.js';
export * from './plugin-output.js';
