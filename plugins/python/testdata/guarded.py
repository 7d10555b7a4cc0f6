import toolhost


@toolhost.tool
def guarded(target: str, ctx: toolhost.Context) -> dict:
    """Deploy after asking."""
    print("about to ask for", target)
    ctx.metadata(title="asking")
    ctx.ask("deploy", [target], ["*"], {"target": target})
    return {"output": "deployed " + target, "metadata": {"session": ctx.session_id, "call": ctx.call_id}}


@toolhost.tool
def caught(ctx: toolhost.Context) -> str:
    """Asks, and carries on when refused."""
    try:
        ctx.ask("deploy", ["prod"])
    except toolhost.HostError as e:
        return "carried on: " + str(e)
    return "allowed"
