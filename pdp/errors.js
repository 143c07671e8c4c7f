"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.PdpError = void 0;
exports.messageOf = messageOf;
class PdpError extends Error {
    code;
    constructor(code, message) {
        super(message);
        this.code = code;
        this.name = "PdpError";
    }
}
exports.PdpError = PdpError;
/** The message of anything thrown: opa-wasm throws plain strings on abort. */
function messageOf(err) {
    if (err instanceof Error)
        return err.message;
    if (typeof err === "string")
        return err;
    if (typeof err === "object" && err !== null && typeof err.message === "string") {
        return err.message;
    }
    return String(err);
}
//# sourceMappingURL=errors.js.map