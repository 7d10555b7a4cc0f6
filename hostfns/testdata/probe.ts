import { tool } from "@opencode-ai/plugin"
import { writeFileSync } from "node:fs"

// The JS guest of hostfns' cross-engine test: fetch a URL, log a line,
// write a file (url is its path), sample the client's model or elicit an
// answer (msg is the request; for sample, level pads the first message
// with that many bytes), or sample in a loop that never ends; and return
// what happened as JSON, a refusal included.
export default tool({
  description: "Probe the host functions every guest shares",
  args: { op: tool.schema.string(), url: tool.schema.string(), level: tool.schema.string(), msg: tool.schema.string() },
  async execute(a, context) {
    if (a.op === "log") {
      console[a.level](a.msg)
      return JSON.stringify({})
    }
    if (a.op === "loop") {
      const req = JSON.parse(a.msg)
      for (;;) await context.sample(req)
    }
    try {
      if (a.op === "sample") {
        const req = JSON.parse(a.msg)
        if (a.level) req.messages[0].content.text += "x".repeat(Number(a.level))
        const r = await context.sample(req)
        return JSON.stringify({ role: r.role, text: r.content.text, model: r.model })
      }
      if (a.op === "elicit") {
        const r = await context.elicit(JSON.parse(a.msg))
        return JSON.stringify({ action: r.action, content: r.content })
      }
      if (a.op === "write") {
        writeFileSync(a.url, a.msg)
        return JSON.stringify({ status: 1 })
      }
      const r = await fetch(a.url)
      return JSON.stringify({ status: r.status, body: await r.text() })
    } catch (e) {
      return JSON.stringify({ error: e.message })
    }
  },
})
