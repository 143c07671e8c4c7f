/**
 * print(): the emitted code collects each argument's values in a set (empty
 * when the argument is undefined) and passes an array of those sets. OPA
 * prints strings bare and other values as Rego text, `<undefined>` for an
 * undefined argument, separated by spaces, as one line through opa_println.
 */

import { Value, T_ARRAY, T_SET, T_STRING, asArr, asSet, asStr } from "./value";
import { toRegoText } from "./json";
import { hostPrintln } from "./host";

function operand(v: Value): string {
  return v.kind == T_STRING ? asStr(v).value : toRegoText(v);
}

/** Text of one argument: a set of its values (an undefined slot, 0, also prints `<undefined>`). */
function argument(addr: usize): string {
  if (addr == 0) return "<undefined>";
  const v = changetype<Value>(addr);
  if (v.kind != T_SET) return operand(v);
  const items = asSet(v).items;
  if (items.length == 0) return "<undefined>";
  if (items.length == 1) return operand(unchecked(items[0]));
  return toRegoText(v); // several values: show them all
}

export function rt_print(args: usize): void {
  if (args == 0 || changetype<Value>(args).kind != T_ARRAY) return;
  const items = asArr(changetype<Value>(args)).items;
  let line = "";
  for (let i = 0; i < items.length; i++) {
    if (i > 0) line += " ";
    line += argument(changetype<usize>(unchecked(items[i])));
  }
  hostPrintln(line);
}
