import { tool } from "@opencode-ai/plugin"

// The JS guest of hostfns' cross-engine test: fetch a URL or log a line,
// and return what happened as JSON, a refusal included.
export default tool({
  description: "Probe the host functions every guest shares",
  args: { op: tool.schema.string(), url: tool.schema.string(), level: tool.schema.string(), msg: tool.schema.string() },
  async execute(a) {
    if (a.op === "log") {
      console[a.level](a.msg)
      return JSON.stringify({})
    }
    try {
      const r = await fetch(a.url)
      return JSON.stringify({ status: r.status, body: await r.text() })
    } catch (e) {
      return JSON.stringify({ error: e.message })
    }
  },
})
