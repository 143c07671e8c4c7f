/**
 * Collections: arrays, sets, objects and their comprehensions, after OPA's
 * parseArray / parseSetOrObject. The ambiguity of `{a | b}` (a set holding
 * `a | b`, or a comprehension) is resolved the way OPA does: a single term is
 * tried first, so `|` after it starts a comprehension; only if that fails is
 * the item re-read as an infix term. The term parser lives in the subclass
 * (`terms.ts`); these methods reach it through the abstract hooks.
 */
import type { ArrayTerm, Body, Location, ObjectTerm, Term } from "../ast";
import { Cursor, type CursorState } from "./cursor";
import type { TokenKind } from "./lexer";

export abstract class CollectionParser extends Cursor {
  /** One term with its ref / call continuation (terms.ts). */
  protected abstract parseTerm(): Term | null;
  /** An infix term without the `k, v in xs` form (terms.ts). */
  protected abstract parseTermInfixCallInList(): Term | null;
  /** A body up to (not past) `end` (body.ts). */
  protected abstract parseBody(end: TokenKind): Body | null;

  /** `[...]`, leaving the cursor on `]`. */
  protected parseArray(): Term | null {
    const loc = this.loc();
    this.next();
    if (this.is("]")) return { type: "array", items: [], loc } satisfies ArrayTerm;
    let potentialComprehension = true;
    // `[, x]` is accepted for backwards compatibility, as in OPA.
    if (this.is(",")) {
      potentialComprehension = false;
      this.next();
    }
    const s = this.save();
    const head = this.parseTerm();
    if (!head) return null;
    if (this.is("]")) return { type: "array", items: [head], loc };
    if (this.is(",")) {
      this.next();
      const items = this.parseTermList("]", [head]);
      return items && { type: "array", items, loc };
    }
    if (this.is("|") && potentialComprehension) {
      this.next();
      const body = this.parseBody("]");
      if (body) return { type: "arraycompr", term: head, body, loc };
      if (!this.is(",")) return null;
    }
    this.restore(s);
    const items = this.parseTermList("]", []);
    return items && { type: "array", items, loc };
  }

  /** `{...}`, leaving the cursor on `}`. */
  protected parseSetOrObject(): Term | null {
    const loc = this.loc();
    this.next();
    if (this.is("}")) return { type: "object", items: [], loc } satisfies ObjectTerm;
    let potentialComprehension = true;
    if (this.is(",")) {
      potentialComprehension = false;
      this.next();
    }
    const s = this.save();
    // A single term first, so that `{a | b}` is a comprehension, not an `or`.
    let head = this.parseTerm();
    if (!head) return null;
    if ((this.is("|") && potentialComprehension) || this.is("}", ",")) {
      return this.parseSet(s, head, potentialComprehension, loc);
    }
    if (this.is(":")) return this.parseObject(head, potentialComprehension, loc);
    this.restore(s);
    head = this.parseTermInfixCallInList();
    if (!head) return null;
    if (this.is("}", ",")) return this.parseSet(s, head, false, loc);
    if (this.is(":")) return this.parseObject(head, potentialComprehension, loc);
    this.illegal("non-terminated set");
    return null;
  }

  private parseSet(s: CursorState, head: Term, potentialComprehension: boolean, loc: Location): Term | null {
    if (this.is("}")) return { type: "set", items: [head], loc };
    if (this.is(",")) {
      this.next();
      const items = this.parseTermList("}", [head]);
      return items && { type: "set", items, loc };
    }
    if (this.is("|")) {
      if (potentialComprehension) {
        this.next();
        const body = this.parseBody("}");
        if (body) return { type: "setcompr", term: head, body, loc };
        if (!this.is(",")) return null;
      }
      this.restore(s);
      const items = this.parseTermList("}", []);
      return items && { type: "set", items, loc };
    }
    return null;
  }

  private parseObject(key: Term, potentialComprehension: boolean, loc: Location): Term | null {
    this.next(); // the colon
    const s = this.save();
    const value = this.parseTerm();
    if (!value) return null;
    let potentialRelation = true;
    if (potentialComprehension && this.is("}", ",", "|")) {
      potentialRelation = !this.is("}", ",");
      const term = this.parseObjectFinish(key, value, true, loc);
      if (term) return term;
    }
    this.restore(s);
    if (potentialRelation) {
      const v = this.parseTermInfixCallInList();
      if (!v) return null;
      if (this.is("}", ",")) return this.parseObjectFinish(key, v, false, loc);
    }
    this.illegal("non-terminated object");
    return null;
  }

  private parseObjectFinish(key: Term, value: Term, potentialComprehension: boolean, loc: Location): Term | null {
    if (this.is("}")) return { type: "object", items: [[key, value]], loc };
    if (this.is("|")) {
      if (!potentialComprehension) {
        this.illegal("non-terminated object");
        return null;
      }
      this.next();
      const body = this.parseBody("}");
      return body && { type: "objectcompr", key, value, body, loc };
    }
    if (this.is(",")) {
      this.next();
      const items = this.parseTermPairList("}", [[key, value]]);
      return items && { type: "object", items, loc };
    }
    return null;
  }

  /** Comma-separated infix terms up to (not past) `end`; a trailing comma is allowed. */
  protected parseTermList(end: TokenKind, items: Term[]): Term[] | null {
    if (this.is(end)) return items;
    for (;;) {
      const term = this.parseTermInfixCallInList();
      if (!term) return null;
      items.push(term);
      if (this.is(end)) return items;
      if (!this.is(",")) {
        this.illegal(`expected "," or "${end}"`);
        return null;
      }
      this.next();
      if (this.is(end)) return items;
    }
  }

  private parseTermPairList(end: TokenKind, items: Array<[Term, Term]>): Array<[Term, Term]> | null {
    if (this.is(end)) return items;
    for (;;) {
      const key = this.parseTermInfixCallInList();
      if (!key) return null;
      if (!this.is(":")) {
        this.illegal(`expected ":"`);
        return null;
      }
      this.next();
      const value = this.parseTermInfixCallInList();
      if (!value) return null;
      items.push([key, value]);
      if (this.is(end)) return items;
      if (!this.is(",")) {
        this.illegal(`expected "," or "${end}"`);
        return null;
      }
      this.next();
      if (this.is(end)) return items;
    }
  }
}
