-- Real-editor smoke test: headless Neovim (0.7.2+) drives `groundls serve` on a workspace.
-- Run: GROUNDLS_SMOKE_WS=<copy of tests/fixtures/lsp_ws> timeout 300 nvim --headless -u NONE -i NONE -c 'luafile smoke.lua'
-- Optional: GROUNDLS_CMD (default "groundls serve"), GROUNDLS_SMOKE_TIMEOUT_MS (default 240000),
-- GROUNDLS_SMOKE_ANSWER_TIMEOUT_MS (default 180000).
-- Checks groundls.search, groundls.similar and hover, then the editor's own commands: the symbol
-- picker, references, definition from a Markdown code span, code lenses, and the code actions
-- "Ask the workspace about this" and "Show related" (documents opened by window/showDocument).
local WS = assert(vim.env.GROUNDLS_SMOKE_WS, 'set GROUNDLS_SMOKE_WS to the workspace folder')
local CMD = vim.split(vim.env.GROUNDLS_CMD or 'groundls serve', ' ', { trimempty = true })
local INDEX_TIMEOUT = tonumber(vim.env.GROUNDLS_SMOKE_TIMEOUT_MS or '240000')
local REQUEST_TIMEOUT = 60000 -- the first search loads the query embedders
-- an answer loads the answer model (if one is installed) and is bounded by answer.timeLimitS
local ANSWER_TIMEOUT = tonumber(vim.env.GROUNDLS_SMOKE_ANSWER_TIMEOUT_MS or '180000')

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
  local function lens_at(line) -- the resolved lens over the definition on `line` (1-based)
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
      if lens.command and lens.range.start.line == line - 1 then return lens.command.title end
    end
  end
  assert(vim.wait(REQUEST_TIMEOUT, function() return lens_at(17) ~= nil end, 100),
    'no resolved code lens over apply_discount')
  local title = lens_at(17)
  assert(title:find('tested in 1', 1, true) and title:find('1 caller', 1, true),
    'the lens over apply_discount counts no test or caller: ' .. title)
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

-- The server's documents (an answer, a related list) live in a folder of the server process.
local function is_server_doc(name) return name:find('/groundls%-docs%-[^/]*/[^/]*%.md$') ~= nil end

-- Pick the code action whose title starts with `title` from the menu vim.lsp.buf.code_action
-- shows (vim.ui.select, as a user picks it), after checking the menu offers it.
local function code_action(title)
  local offered, chosen = {}, nil
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    vim.ui.select = select
    for _, item in ipairs(items) do
      local shown = (opts.format_item(item))
      table.insert(offered, shown)
      if not chosen and shown:sub(1, #title) == title then chosen = item end
    end
    on_choice(chosen)
  end
  vim.lsp.buf.code_action()
  local menu = vim.wait(REQUEST_TIMEOUT, function() return #offered > 0 end, 50)
  vim.ui.select = select
  assert(menu, 'code actions offered no menu')
  assert(chosen, 'code actions lack "' .. title .. '": ' .. table.concat(offered, ' | '))
  return offered
end

-- Wait for the server to open a new document of its own (window/showDocument takes focus)
-- that satisfies `done(text)`; its buffer and text.
local function wait_shown_doc(before, timeout, done)
  local buf, text
  local shown = vim.wait(timeout, function()
    buf = vim.api.nvim_get_current_buf()
    if before[buf] or not is_server_doc(vim.api.nvim_buf_get_name(buf)) then return false end
    text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
    return done(text)
  end, 100)
  assert(buf and is_server_doc(vim.api.nvim_buf_get_name(buf)) and not before[buf],
    'no window/showDocument opened a document of the server (current buffer: '
    .. vim.api.nvim_buf_get_name(0) .. ')')
  assert(shown, 'the shown document never completed:\n' .. tostring(text))
  return buf, text
end

local function buffers()
  local set = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do set[b] = true end
  return set
end

-- "Ask the workspace about this" and "Show related" from the code action menu; each runs its
-- command, whose document the server opens with window/showDocument.
local function code_actions(bufnr, executed)
  vim.api.nvim_set_current_buf(bufnr)
  vim.api.nvim_win_set_cursor(0, { 18, 8 }) -- the docstring: the line is the question
  local question = vim.trim(vim.api.nvim_buf_get_lines(bufnr, 17, 18, false)[1])
  local before = buffers()
  executed['groundls.askInDocument'] = nil
  local offered = code_action('Ask the workspace about this')
  out('code actions at src/billing/invoice.py:18 -> ' .. table.concat(offered, ' | '))
  local buf, text = wait_shown_doc(before, ANSWER_TIMEOUT, function(t)
    -- the server's edits replace "Answering..." with the answer as it streams; the last one
    -- holds what the server wrote to the document's file when it answered
    if executed['groundls.askInDocument'] == nil or t:find('_Answering..._', 1, true) then return false end
    local final = table.concat(vim.fn.readfile(vim.api.nvim_buf_get_name(0)), '\n')
    return vim.trim(t) == vim.trim(final)
  end)
  local answer = executed['groundls.askInDocument']
  assert(not answer.err, 'groundls.askInDocument failed: ' .. vim.inspect(answer.err))
  answer = answer.result
  assert(answer.document == vim.uri_from_bufnr(buf),
    'the opened document is not the answer\'s: ' .. tostring(answer.document))
  assert(vim.api.nvim_buf_get_name(buf):sub(1, #WS + 1) ~= WS .. '/', 'answer written in the workspace')
  local lines = vim.split(text, '\n', { plain = true })
  assert(lines[1]:sub(1, 2) == '# ' and lines[1]:find('Reduce a subtotal by a percentage discount', 1, true),
    'the document is not headed by the question (' .. question .. '): ' .. lines[1])
  local body = vim.trim((table.concat(vim.list_slice(lines, 2, #lines), '\n'):gsub('## Sources.*$', '')))
  assert(body ~= '', 'the answer document has no answer under the question:\n' .. text)
  assert(vim.tbl_contains({ 'llm', 'extractive', 'not_found' }, answer.mode), 'mode ' .. tostring(answer.mode))
  local citations = answer.citations or {}
  if #citations > 0 then
    -- cited: [n] in the text links the cited lines, and each source is listed as a link
    assert(text:find('%[%[%d+%]%]%(file://[^)]+#L%d+%)'), 'no [n] citation links to its lines:\n' .. text)
    assert(text:find('\n## Sources\n', 1, true), 'no Sources list:\n' .. text)
    for _, c in ipairs(citations) do
      assert(c.path:sub(1, 1) ~= '/' and vim.uri_to_fname(c.uri) == WS .. '/' .. c.path,
        'citation outside the workspace: ' .. vim.inspect(c))
      local source = '\n' .. c.n .. '. [' .. c.path:gsub('([_*])', '\\%1') .. ':' .. c.startLine .. '](' .. c.uri
        .. '#L' .. c.startLine .. ')'
      assert(text:find(source, 1, true), 'source ' .. c.n .. ' is not a link to its lines:\n' .. text)
    end
  else
    -- nothing to cite: a clear not-found (or labelled excerpts that cite nothing) and no Sources
    assert(answer.found == false or answer.mode ~= 'llm', 'an uncited llm answer claims found')
    assert(not text:find('## Sources', 1, true), 'a Sources list without citations')
  end
  local cited = vim.tbl_map(function(c) return c.path .. ':' .. c.startLine end, citations)
  out(string.format('code action "Ask the workspace about this" -> window/showDocument opened %s (mode %s, found %s, cites %s):\n%s',
    vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':t'), answer.mode, tostring(answer.found),
    #cited > 0 and table.concat(cited, ', ') or 'nothing', text))

  vim.api.nvim_set_current_buf(bufnr)
  vim.api.nvim_win_set_cursor(0, { 17, 5 }) -- on apply_discount's name
  before = buffers()
  executed['groundls.related'] = nil
  code_action('Show related: apply_discount')
  buf, text = wait_shown_doc(before, REQUEST_TIMEOUT, function()
    return executed['groundls.related'] ~= nil
  end)
  local related = executed['groundls.related']
  assert(not related.err, 'groundls.related failed: ' .. vim.inspect(related.err))
  assert(related.result.document == vim.uri_from_bufnr(buf) and related.result.shown == true,
    'the opened document is not the related list: ' .. vim.inspect(related.result))
  assert(vim.split(text, '\n')[1] == '# Related: apply_discount', 'related heading: ' .. text)
  for _, want in ipairs({ 'src/billing/invoice.py:28', 'tests/test_invoice.py:8', 'docs/discounts.md:3' }) do
    local path, line = want:match('^(.*):(%d+)$')
    local link = '](' .. vim.uri_from_fname(WS .. '/' .. path) .. '#L' .. line .. ')'
    assert(text:find(link, 1, true), 'the related list has no link to ' .. want .. ':\n' .. text)
  end
  out('code action "Show related: apply_discount" -> window/showDocument opened '
    .. vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':t') .. ':\n' .. text)
end

local function main()
  vim.o.hidden = true -- the answer buffer is modified by the server's edits (0.9+'s default)
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
  -- a command's result, recorded as the code actions run them (the default handler drops it)
  local executed = {}
  config.handlers = {
    ['workspace/executeCommand'] = function(err, result, ctx)
      executed[ctx.params.command] = { err = err, result = result }
    end,
  }
  if not vim.lsp.handlers['window/showDocument'] then
    -- Neovim 0.7 has no window/showDocument (0.8+ opens it itself): do what 0.8's handler does
    out('window/showDocument: this Neovim has no handler; the test adds one like 0.8\'s')
    config.capabilities = vim.lsp.protocol.make_client_capabilities()
    config.capabilities.window.showDocument = { support = true }
    config.handlers['window/showDocument'] = function(_, result, ctx)
      local client = vim.lsp.get_client_by_id(ctx.client_id)
      local at = result.selection or { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } }
      local ok = vim.lsp.util.jump_to_location({ uri = result.uri, range = at }, client.offset_encoding)
      return { success = ok == true }
    end
  end
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
  code_actions(bufnr, executed)

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
