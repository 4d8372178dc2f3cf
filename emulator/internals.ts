import type { EmulatorServices } from './app.js';

// The services behind a running emulator (the store and its collections, the dispatcher, messaging, the admin
// settings, storage), for this repository's own tests and benchmarks. Not part of plugsmith/emulator: the
// package's exports leave this module out, so a plugin's tests go through the APIs and the Emulator's helpers.

// Keyed by the object startEmulator() returns (typed `object`, so this module needs nothing of index.ts).
const servicesOf = new WeakMap<object, EmulatorServices>();

/** Called by startEmulator(): ties the emulator it returns to its services. */
export function keepInternals<T extends object>(emulator: T, services: EmulatorServices): T {
  servicesOf.set(emulator, services);
  return emulator;
}

/** The services of an emulator startEmulator() returned: direct access to the store for this repository's tests. */
export function emulatorInternals(emulator: object): EmulatorServices {
  const services = servicesOf.get(emulator);
  if (!services) throw new TypeError('emulatorInternals: not an emulator startEmulator() returned');
  return services;
}
