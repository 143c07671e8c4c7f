/**
 * The compiled form of a JSON Schema (gojsonschema's SubSchema) and the
 * drafts it is read under.
 */

import { NumV } from "../../value";
import { Regexp } from "../regex/regexp";

export const DRAFT4: i32 = 4;
export const DRAFT6: i32 = 6;
export const DRAFT7: i32 = 7;
export const HYBRID: i32 = 1 << 30;

/** additionalProperties / additionalItems: absent, a boolean, or a schema. */
const ADD_NONE: i32 = 0;
export const ADD_FALSE: i32 = 1;
export const ADD_TRUE: i32 = 2;
export const ADD_SCHEMA: i32 = 3;

/** A compiled (sub)schema; absent keywords are null / empty / -1. */
export class Sub {
  draft: i32 = HYBRID;
  /** -1: an ordinary schema; 0/1: the boolean schema false/true (draft 6+). */
  pass: i32 = -1;
  refSchema: Sub | null = null;
  types: Array<string> = new Array<string>();
  propNames: Array<string> = new Array<string>();
  propSubs: Array<Sub> = new Array<Sub>();
  addProps: i32 = ADD_NONE;
  addPropsSub: Sub | null = null;
  patternKeys: Array<string> = new Array<string>();
  patternRes: Array<Regexp> = new Array<Regexp>();
  patternSubs: Array<Sub> = new Array<Sub>();
  propertyNames: Sub | null = null;
  depKeys: Array<string> = new Array<string>();
  /** Per dependency key: the property list, or null when depSubs has a schema. */
  depLists: Array<Array<string> | null> = new Array<Array<string> | null>();
  depSubs: Array<Sub | null> = new Array<Sub | null>();
  items: Array<Sub> = new Array<Sub>();
  itemsSingle: bool = false;
  addItems: i32 = ADD_NONE;
  addItemsSub: Sub | null = null;
  multipleOf: NumV | null = null;
  minimum: NumV | null = null;
  maximum: NumV | null = null;
  exclusiveMinimum: NumV | null = null;
  exclusiveMaximum: NumV | null = null;
  minLength: i64 = -1;
  maxLength: i64 = -1;
  pattern: Regexp | null = null;
  patternSrc: string = "";
  format: string = "";
  minProperties: i64 = -1;
  maxProperties: i64 = -1;
  required: Array<string> = new Array<string>();
  minItems: i64 = -1;
  maxItems: i64 = -1;
  uniqueItems: bool = false;
  contains: Sub | null = null;
  constJson: string | null = null;
  enumPresent: bool = false;
  enumJson: Array<string> = new Array<string>();
  oneOf: Array<Sub> = new Array<Sub>();
  anyOf: Array<Sub> = new Array<Sub>();
  allOf: Array<Sub> = new Array<Sub>();
  not: Sub | null = null;
  ifS: Sub | null = null;
  thenS: Sub | null = null;
  elseS: Sub | null = null;
}
