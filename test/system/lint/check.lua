-- Neovim (0.7+) as a third-party LSP client of the snapshot lint server, headless:
-- start `node <server> --stdio`, open the file, wait for publishDiagnostics, ask for code actions
-- on the first diagnostic, apply the preferred fix, print one JSON line per fact, exit 0/1.
-- Environment: DSW_SERVER (path to dist/server.js), DSW_FILE (the Python file to open).
local server = os.getenv('DSW_SERVER')
local file = os.getenv('DSW_FILE')
local function emit(t) io.stdout:write(vim.fn.json_encode(t) .. '\n') end
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = 'dynamo-snapshot-lint',
  cmd = { 'node', server, '--stdio' },
  root_dir = vim.fn.fnamemodify(file, ':h'),
})
vim.lsp.buf_attach_client(bufnr, client_id)
local got = vim.wait(15000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
local diags = vim.diagnostic.get(bufnr)
for _, d in ipairs(diags) do
  local lsp = d.user_data and d.user_data.lsp or {}
  emit({ kind = 'diagnostic', line = d.lnum + 1, col = d.col + 1, code = tostring(d.code or lsp.code), source = d.source, message = d.message })
end
local status = 1
if got then
  local first = diags[1]
  -- What `vim.lsp.buf.code_action()` sends on 0.7: the line's diagnostics converted back to LSP form.
  local line_diags = vim.lsp.diagnostic.get_line_diagnostics and vim.lsp.diagnostic.get_line_diagnostics(bufnr, first.lnum)
    or { first.user_data and first.user_data.lsp }
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = first.lnum, character = first.col }, ['end'] = { line = first.end_lnum, character = first.end_col } },
    context = { diagnostics = line_diags },
  }
  local res = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, 10000)
  local preferred
  for _, r in pairs(res or {}) do
    for _, a in ipairs(r.result or {}) do
      emit({ kind = 'action', title = a.title, preferred = a.isPreferred == true })
      if a.isPreferred and not preferred then preferred = a end
    end
  end
  if preferred then
    vim.lsp.util.apply_workspace_edit(preferred.edit, 'utf-16')
    emit({ kind = 'applied', text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n') })
    status = 0
  end
end
vim.lsp.stop_client(client_id)
vim.cmd('cquit ' .. status)
