-- Real-editor smoke test: headless Neovim (0.7.2+) drives `groundls serve` on a workspace.
-- Run: GROUNDLS_SMOKE_WS=<copy of tests/fixtures/lsp_ws> timeout 300 nvim --headless -u NONE -i NONE -c 'luafile smoke.lua'
-- Optional: GROUNDLS_CMD (default "groundls serve"), GROUNDLS_SMOKE_TIMEOUT_MS (default 240000).
local WS = assert(vim.env.GROUNDLS_SMOKE_WS, 'set GROUNDLS_SMOKE_WS to the workspace folder')
local CMD = vim.split(vim.env.GROUNDLS_CMD or 'groundls serve', ' ', { trimempty = true })
local INDEX_TIMEOUT = tonumber(vim.env.GROUNDLS_SMOKE_TIMEOUT_MS or '240000')
local REQUEST_TIMEOUT = 60000 -- the first search loads the query embedders

local function out(s) io.stdout:write('[nvim] ' .. s .. '\n') end

local function request(client, bufnr, method, params)
  local r, err = client.request_sync(method, params, REQUEST_TIMEOUT, bufnr)
  assert(r, method .. ' timed out or failed: ' .. tostring(err))
  assert(not r.err, method .. ' error: ' .. vim.inspect(r.err))
  return r.result
end

local function command(client, bufnr, name, arg)
  return request(client, bufnr, 'workspace/executeCommand', { command = name, arguments = { arg } })
end

local function wait_qf(what)
  assert(vim.wait(REQUEST_TIMEOUT, function() return #vim.fn.getqflist() > 0 end, 50),
    what .. ' listed nothing')
  local places = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    local name = vim.api.nvim_buf_get_name(item.bufnr):sub(#WS + 2)
    table.insert(places, name .. ':' .. item.lnum)
  end
  out(what .. ' -> ' .. table.concat(places, ', '))
  return places
end

-- the editor's own keys, as a user presses them: the symbol picker, references, definition
-- from a Markdown code span, code lenses
local function standard_requests(client_id, bufnr)
  vim.fn.setqflist({})
  vim.lsp.buf.workspace_symbol('apply_discount')
  local symbols = wait_qf('workspace_symbol(apply_discount)')
  assert(symbols[1] == 'src/billing/invoice.py:17', 'the definition is not first')
  vim.cmd('cclose')
  vim.api.nvim_set_current_buf(bufnr)

  vim.api.nvim_win_set_cursor(0, { 17, 5 })
  vim.fn.setqflist({})
  vim.lsp.buf.references({ includeDeclaration = false })
  local refs = table.concat(wait_qf('references(apply_discount)'), ' ')
  for _, want in ipairs({ 'src/billing/invoice.py:28', 'tests/test_invoice.py:8', 'docs/discounts.md:3' }) do
    assert(refs:find(want, 1, true), 'references lack ' .. want)
  end
  vim.cmd('cclose')

  vim.lsp.codelens.refresh()
  assert(vim.wait(REQUEST_TIMEOUT, function()
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
      if lens.command and lens.command.title:find('caller', 1, true) then return true end
    end
    return false
  end, 100), 'no resolved code lens')
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    if lens.command then out('code lens line ' .. (lens.range.start.line + 1) .. ': ' .. lens.command.title) end
  end

  vim.cmd('edit ' .. vim.fn.fnameescape(WS .. '/docs/discounts.md'))
  local doc = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(doc, client_id)
  vim.wait(2000, function() return vim.lsp.buf_is_attached(doc, client_id) end, 50)
  vim.api.nvim_win_set_cursor(0, { 3, 7 })
  vim.lsp.buf.definition()
  assert(vim.wait(REQUEST_TIMEOUT, function()
    return vim.api.nvim_buf_get_name(0):find('invoice.py', 1, true) ~= nil
  end, 50), 'definition from the Markdown span did not open invoice.py')
  local line = vim.api.nvim_win_get_cursor(0)[1]
  assert(line == 17, 'definition went to line ' .. line)
  out('definition from docs/discounts.md:3 -> src/billing/invoice.py:' .. line)
end

local function main()
  -- a doc page that names the function as code
  vim.fn.writefile({ '# Discounts', '', 'Use `apply_discount` to take a percentage off a subtotal.' },
    WS .. '/docs/discounts.md')
  local file = WS .. '/src/billing/invoice.py'
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local started = vim.loop.hrtime()
  local config = {
    name = 'groundls',
    cmd = CMD,
    root_dir = WS,
    workspace_folders = { { uri = vim.uri_from_fname(WS), name = 'lsp_ws' } },
    init_options = { hover = { count = 3 } },
    on_exit = function(code, _) if code ~= 0 then out('server exited with ' .. code) end end,
  }
  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start(config)
  else -- 0.7: start_client + buf_attach_client
    client_id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
  assert(client_id, 'failed to start groundls')
  local client = vim.lsp.get_client_by_id(client_id)
  assert(vim.wait(30000, function() return client.initialized == true end, 50),
    'groundls did not initialize')
  local commands = client.server_capabilities.executeCommandProvider.commands
  out('initialized in ' .. math.floor((vim.loop.hrtime() - started) / 1e6) .. ' ms; commands: '
    .. table.concat(commands, ', '))
  assert(vim.tbl_contains(commands, 'groundls.search'), 'groundls.search not advertised')

  -- wait for the background index (groundls.status answers while indexing)
  local status
  local ready = vim.wait(INDEX_TIMEOUT, function()
    status = command(client, bufnr, 'groundls.status', {})
    local f = status.folders[1]
    return f ~= nil and f.indexing == false and (f.chunks or 0) > 0
  end, 500)
  assert(ready, 'indexing did not finish: ' .. vim.inspect(status))
  out(string.format('indexed %d files, %d chunks in %d ms', status.folders[1].files,
    status.folders[1].chunks, math.floor((vim.loop.hrtime() - started) / 1e6)))

  local search = command(client, bufnr, 'groundls.search', { query = 'sales tax rate', k = 5 })
  assert(#search.hits > 0, 'groundls.search found nothing')
  local paths = {}
  for _, h in ipairs(search.hits) do
    assert(h.path:sub(1, 1) ~= '/', 'absolute path in result: ' .. h.path)
    assert(h.range.start.line == h.startLine - 1, 'range is not 0-based')
    table.insert(paths, h.path .. ':' .. h.startLine)
  end
  out('groundls.search -> ' .. table.concat(paths, ', '))
  assert(vim.tbl_contains(vim.tbl_map(function(h) return h.path end, search.hits), 'docs/billing.md'),
    'docs/billing.md not among the hits')

  local uri = vim.uri_from_bufnr(bufnr)
  local similar = command(client, bufnr, 'groundls.similar',
    { uri = uri, position = { line = 17, character = 4 } })
  assert(similar.source ~= vim.NIL and similar.source.path == 'src/billing/invoice.py',
    'no source chunk at invoice.py:18')
  assert(#similar.hits > 0, 'groundls.similar found nothing')
  for _, h in ipairs(similar.hits) do
    assert(h.chunkId ~= similar.source.chunkId, 'similar returned the chunk itself')
  end
  out('groundls.similar(' .. similar.source.title .. ') -> ' .. similar.hits[1].path .. ':'
    .. similar.hits[1].startLine)

  local t0 = vim.loop.hrtime()
  local hover = request(client, bufnr, 'textDocument/hover',
    { textDocument = { uri = uri }, position = { line = 17, character = 4 } })
  local hover_ms = (vim.loop.hrtime() - t0) / 1e6
  assert(hover and hover ~= vim.NIL, 'hover returned null')
  local text = hover.contents.value
  assert(text:find('Related in this workspace', 1, true), 'hover text wrong: ' .. text)
  assert(text:find('#L', 1, true), 'hover has no line links')
  assert(text:find('Tested in', 1, true), 'hover names no test: ' .. text)
  assert(text:find('Called from', 1, true), 'hover names no caller: ' .. text)
  out(string.format('hover (%.1f ms round trip):\n%s', hover_ms, text))

  standard_requests(client_id, bufnr)

  client.stop()
  assert(vim.wait(15000, function() return client.is_stopped() end, 50), 'server did not stop')
end

local ok, err = pcall(main)
if ok then
  out('PASS')
  vim.cmd('qall!')
else
  out('FAIL: ' .. tostring(err))
  vim.cmd('cquit 1')
end
