/** Request signing for cloud providers (providers.*), computed natively in the runtime. */
import { specs, type BuiltinSpec } from "./spec";

export const PROVIDERS: BuiltinSpec[] = [...specs(3, ["providers.aws.sign_req"])];
