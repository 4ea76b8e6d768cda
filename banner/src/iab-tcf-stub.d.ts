/** `@iabtechlabtcf/stub` ships no types: a CommonJS module whose export installs `__tcfapi`. */
declare module '@iabtechlabtcf/stub' {
  const installStub: () => void;
  export default installStub;
}
