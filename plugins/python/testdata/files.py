import os
import time

import toolhost


@toolhost.tool
def files(op: str, path: str = "", data: str = "") -> str:
    """File and clock probes for the sandbox tests."""
    if op == "read":
        with open(path) as f:
            return f.read()
    if op == "write":
        with open(path, "w") as f:
            f.write(data)
        return "wrote"
    if op == "list":
        return ",".join(sorted(os.listdir(path)))
    if op == "clock":
        return str(int(time.time()))
    if op == "escape_toolhost":
        import toolhost as t
        with open(t.__file__, "w") as f:
            f.write("x")
        return "wrote"
    return "?"
