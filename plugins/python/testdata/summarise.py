import toolhost


@toolhost.tool
def summarise(text: str, ctx: toolhost.Context) -> str:
    """Summarise a text with the client's model (MCP sampling, under the tool's "sampling" grant)."""
    r = ctx.sample("Summarise: " + text, 100)
    return r["model"] + ": " + r["content"]["text"]
