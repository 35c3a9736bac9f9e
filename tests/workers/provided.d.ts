/** What the global setup provides to the Workers tests, read with inject() (tests/helpers/workers-reference-setup.ts). */
export {};

declare module 'vitest' {
  export interface ProvidedContext {
    hostileServerUrl: string;
  }
}
