import toolhost


@toolhost.tool
def forecast(fn: str, city: object, ctx: toolhost.Context) -> str:
    """Call the host function fn; a refusal other than a permission's is returned as text."""
    try:
        return str(ctx.call_host(fn, {"city": city}))
    except toolhost.HostError as e:
        if e.kind in ("denied", "rejected", "corrected"):
            raise
        return "host error " + e.kind + ": " + str(e)
