// Command-line options of the A/B scripts: `--name value` pairs read by name.

/** A reader of `--name value` options in `args`: the value (a string), or `dflt` when absent. */
export function optionReader(args) {
  return (name, dflt) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
  };
}
