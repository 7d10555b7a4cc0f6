import json

import toolhost


@toolhost.tool
def probe(op: str, url: str, level: str, msg: str) -> str:
    """The Python guest of hostfns' cross-engine test: fetch a URL or log a line."""
    if op == "log":
        toolhost.log(msg, level)
        return json.dumps({})
    try:
        r = toolhost.fetch(url)
        return json.dumps({"status": r.status, "body": r.text()})
    except toolhost.HostError as e:
        return json.dumps({"error": str(e)})
