/** Lua scripts are imported as text: esbuild's `text` loader (see scripts/build.mjs). */
declare module '*.lua' {
  const source: string;
  export default source;
}
