import json

import toolhost


def sample(ctx, req):
    # The request's JSON as the Python API takes it; anything but an
    # object is passed on as the messages.
    if not isinstance(req, dict):
        return ctx.sample(req, None)
    return ctx.sample(req.get("messages"), req.get("maxTokens"), system_prompt=req.get("systemPrompt"),
                      temperature=req.get("temperature"), stop_sequences=req.get("stopSequences"))


@toolhost.tool
def probe(op: str, url: str, level: str, msg: str, ctx: toolhost.Context) -> str:
    """The Python guest of hostfns' cross-engine test: fetch a URL, log a line, write a file (url is its path), sample or elicit (msg is the request), or sample in a loop."""
    if op == "log":
        toolhost.log(msg, level)
        return json.dumps({})
    if op == "loop":
        req = json.loads(msg)
        while True:
            sample(ctx, req)
    if op == "write":
        try:
            with open(url, "w") as f:
                f.write(msg)
            return json.dumps({"status": 1})
        except OSError as e:
            return json.dumps({"error": str(e)})
    try:
        if op == "sample":
            req = json.loads(msg)
            if level:
                req["messages"][0]["content"]["text"] += "x" * int(level)
            r = sample(ctx, req)
            return json.dumps({"role": r["role"], "text": r["content"]["text"], "model": r["model"]})
        if op == "elicit":
            req = json.loads(msg)
            if isinstance(req, dict):
                r = ctx.elicit(req.get("message"), req.get("requestedSchema"))
            else:
                r = ctx.elicit(req, req)
            return json.dumps({"action": r["action"], "content": r.get("content")})
        r = toolhost.fetch(url)
        return json.dumps({"status": r.status, "body": r.text()})
    except toolhost.HostError as e:
        return json.dumps({"error": str(e)})
