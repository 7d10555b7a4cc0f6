import json

import toolhost


@toolhost.tool
def probe(op: str, url: str, level: str, msg: str) -> str:
    """The Python guest of hostfns' cross-engine test: fetch a URL, log a line or write a file (url is its path)."""
    if op == "log":
        toolhost.log(msg, level)
        return json.dumps({})
    if op == "write":
        try:
            with open(url, "w") as f:
                f.write(msg)
            return json.dumps({"status": 1})
        except OSError as e:
            return json.dumps({"error": str(e)})
    try:
        r = toolhost.fetch(url)
        return json.dumps({"status": r.status, "body": r.text()})
    except toolhost.HostError as e:
        return json.dumps({"error": str(e)})
