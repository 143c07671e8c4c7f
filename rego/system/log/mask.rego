# Decision-log masking: data.system.log.mask (OPA's masking contract).
#
# The decision log evaluates this rule with the whole event as input, so the
# decision input is at input.input. The rule is a set: plain strings are JSON
# pointers to ERASE; {"op": "upsert", "path", "value"} objects OVERWRITE.
#
# Our decision input is built from server-side context and should never
# carry a secret, so this is the safety net for when it does (a future input
# field, a bug, a client putting a token where a name goes). Three general
# rules, no list of known paths to keep up to date:
#
# 1. Secret-named keys are erased, at any depth of the input (up to 8
#    levels): password, passwd, passphrase, secret, token, authorization,
#    cookie, api key, private key, credential, session id, otp, pin, cvv,
#    ssn, card number... in any case or style (accessToken, client_secret,
#    X-Api-Key). This covers /input/actor/token, /input/password,
#    /input/token, /input/secret, /input/headers/authorization, a future
#    /input/fields/values/password, etc. Only the outermost such key is
#    listed (erasing it erases what is below). Below 8 levels we cannot
#    look, so a suspicious input's deeper collections are erased whole.
# 2. String values that ARE credentials (a JWT, "Bearer ..." / "Basic ...",
#    a PEM private key) are overwritten with "[REDACTED]" wherever they
#    appear, whatever their key.
# 3. The client-controlled name lists /input/fields/submitted (body field
#    names) and /input/params (query parameter names): an element named like
#    a secret ("password", "api_key") or that looks like a token (32+
#    token characters) is overwritten with "[REDACTED]". Upsert keeps the
#    array positions, so the auditor still sees how many fields were sent
#    and every ordinary name (e.g. an "isAdmin" mass-assignment attempt).
#
# The actor, action, route, resource and the result are never masked: they
# are what an auditor reads.
package system.log

redacted := "[REDACTED]"

# `suspicious` gates everything: when it does not hold (the common case),
# no per-node rule below runs. (Our compiler memoises a rule's value,
# undefined included, so referencing it more than once would cost nothing.)
mask contains item if {
	suspicious
	some item in findings
}

findings contains pointer(path) if {
	some path in secret_key_paths
	not secret_ancestor(path)
}

findings contains pointer(path) if {
	some path in too_deep
	not under_secret_key(path)
}

findings contains {"op": "upsert", "path": pointer(path), "value": redacted} if {
	some [path, value] in nodes
	is_string(value)
	not under_secret_key(path)
	redact_value(path, value)
}

# --- fast path ------------------------------------------------------------
#
# The mask runs for every decision, and almost every input carries nothing
# secret-looking at all. One look at the input's JSON text in lower case
# finds out; the per-node rules below run only when it holds. The words are
# pieces of every secret word and credential prefix, free of "-" and "_"
# (api_key, api-key and apiKey all contain "key"): it over-approximates, a
# hit only means "look closer".

suspicious if {
	text := lower(json.marshal(input.input))
	some word in prefilter_words
	contains(text, word)
}

prefilter_words := [
	"passw", "passphrase", "secret", "token", "authori", "cookie", "key", "credential",
	"session", "card", `"otp"`, `"pin"`, `"cvv"`, `"cvc"`, `"ssn"`,
	"bearer", "basic", "eyj", "-----begin",
]

suspicious if {
	some name in input.input.fields.submitted
	long_name(name)
}

suspicious if {
	some name in input.input.params
	long_name(name)
}

long_name(name) if {
	is_string(name)
	count(name) >= 32
}

# --- what counts as secret ------------------------------------------------
#
# Plain string tests, no regular expressions on the hot path: the mask runs
# for every decision and regex.match costs far more than contains() here.

secret_name(name) if {
	is_string(name)
	some word in secret_words
	contains(squashed(name), word)
}

secret_name(name) if {
	is_string(name)
	squashed(name) in {"otp", "pin", "cvv", "cvc", "ssn"}
}

# Lower case without "-" and "_": accessToken, access_token and
# Access-Token all become "accesstoken".
squashed(name) := replace(replace(lower(name), "-", ""), "_", "")

secret_words := [
	"password", "passwd", "passphrase", "secret", "token", "authorization", "authorisation",
	"cookie", "apikey", "privatekey", "credential", "sessionid", "cardnumber",
]

credential_value(s) if {
	some scheme in ["Bearer ", "bearer ", "Basic ", "basic "]
	startswith(s, scheme)
}

# A JWT: base64url of '{"' is "eyJ"; header.payload.signature.
credential_value(s) if {
	startswith(s, "eyJ")
	strings.count(s, ".") >= 2
}

credential_value(s) if contains(s, "-----BEGIN")

redact_value(_, s) if credential_value(s)

redact_value(path, s) if {
	name_list(path)
	secret_name(s)
}

# A name of 32+ token characters is a value someone pasted, not a name.
redact_value(path, s) if {
	name_list(path)
	long_name(s)
	regex.match(`^[A-Za-z0-9+/=_.~-]+$`, s)
}

name_list(path) if {
	count(path) == 3
	array.slice(path, 0, 2) == ["fields", "submitted"]
}

name_list(path) if {
	count(path) == 2
	path[0] == "params"
}

# --- the input as [path, leaf] nodes --------------------------------------
#
# Every node of the decision input as [path, the node's value if it is a
# string, else null]. There is no walk builtin in our compiler (yet) and Rego
# has no recursion, so each depth is its own rule; 8 levels cover any input
# we build. Only strings are carried, never subtrees: cheap to collect.

nodes contains [[k1], leaf(v1)] if {
	some k1, v1 in input.input
}

nodes contains [[k1, k2], leaf(v2)] if {
	some k1, v1 in input.input
	some k2, v2 in v1
}

nodes contains [[k1, k2, k3], leaf(v3)] if {
	some k1, v1 in input.input
	some k2, v2 in v1
	some k3, v3 in v2
}

nodes contains [[k1, k2, k3, k4], leaf(v4)] if {
	some k1, v1 in input.input
	some k2, v2 in v1
	some k3, v3 in v2
	some k4, v4 in v3
}

nodes contains [[k1, k2, k3, k4, k5], leaf(v5)] if {
	some k1, v1 in input.input
	some k2, v2 in v1
	some k3, v3 in v2
	some k4, v4 in v3
	some k5, v5 in v4
}

nodes contains [[k1, k2, k3, k4, k5, k6], leaf(v6)] if {
	some k1, v1 in input.input
	some k2, v2 in v1
	some k3, v3 in v2
	some k4, v4 in v3
	some k5, v5 in v4
	some k6, v6 in v5
}

nodes contains [[k1, k2, k3, k4, k5, k6, k7], leaf(v7)] if {
	some k1, v1 in input.input
	some k2, v2 in v1
	some k3, v3 in v2
	some k4, v4 in v3
	some k5, v5 in v4
	some k6, v6 in v5
	some k7, v7 in v6
}

nodes contains [[k1, k2, k3, k4, k5, k6, k7, k8], leaf(v8)] if {
	some k1, v1 in input.input
	some k2, v2 in v1
	some k3, v3 in v2
	some k4, v4 in v3
	some k5, v5 in v4
	some k6, v6 in v5
	some k7, v7 in v6
	some k8, v8 in v7
}

leaf(v) := v if is_string(v) else := null

# Collections deeper than that: we cannot look inside, so they are erased
# whole (fail closed; no input we build nests this deep).
too_deep contains [k1, k2, k3, k4, k5, k6, k7, k8] if {
	some k1, v1 in input.input
	some k2, v2 in v1
	some k3, v3 in v2
	some k4, v4 in v3
	some k5, v5 in v4
	some k6, v6 in v5
	some k7, v7 in v6
	some k8, v8 in v7
	is_collection(v8)
}

is_collection(v) if is_object(v)

is_collection(v) if is_array(v)

# --- keys and pointers ----------------------------------------------------

secret_key_paths contains path if {
	some [path, _] in nodes
	secret_name(path[count(path) - 1])
}

secret_ancestor(path) if {
	some n, _ in path
	n > 0
	array.slice(path, 0, n) in secret_key_paths
}

under_secret_key(path) if path in secret_key_paths

under_secret_key(path) if secret_ancestor(path)

# A JSON pointer (RFC 6901) into the event: "/input" + the escaped path.
pointer(path) := concat("/", array.concat(["", "input"], [segment(k) | some k in path]))

segment(k) := format_int(k, 10) if is_number(k)

segment(k) := replace(replace(k, "~", "~0"), "/", "~1") if is_string(k)
