-- fracas in Neovim's built-in client (0.11 or newer): .rules files are fracas,
-- and `fracas lsp` (pip install 'fracas[lsp]') serves them. Put this in init.lua.
vim.filetype.add({ extension = { rules = "fracas" } })
vim.lsp.config("fracas", {
  cmd = { "fracas", "lsp" },
  filetypes = { "fracas" },
  root_markers = { ".git" },
})
vim.lsp.enable("fracas")
-- Format on save with the server (the same layout as `fracas fmt`):
vim.api.nvim_create_autocmd("BufWritePre", {
  pattern = "*.rules",
  callback = function() vim.lsp.buf.format({ name = "fracas" }) end,
})
