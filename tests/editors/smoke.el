;;; smoke.el --- real-editor smoke test: Emacs eglot drives `groundls serve' -*- lexical-binding: t -*-
;; Run: GROUNDLS_SMOKE_WS=<copy of tests/fixtures/lsp_ws> timeout 300 emacs --batch -l smoke.el
;; Optional: GROUNDLS_CMD (default "groundls serve"), GROUNDLS_SMOKE_TIMEOUT_S (default 240).
;; Works with Emacs 28.2 + Debian's elpa-eglot 1.9 and with the eglot built into Emacs 29+.
;; After groundls.search, groundls.similar and hover it drives the standard requests through
;; the xref commands eglot backs: xref-find-apropos (workspace/symbol), xref-find-references
;; (textDocument/references) and, in a Markdown page eglot also manages, xref-find-definitions
;; (textDocument/definition).
(package-initialize)                     ; puts Debian's elpa-eglot on the load path
(require 'eglot)
(require 'python)
(require 'xref)
(require 'subr-x)                        ; string-join

(defvar smoke-ws (file-name-as-directory
                  (expand-file-name (or (getenv "GROUNDLS_SMOKE_WS")
                                        (error "Set GROUNDLS_SMOKE_WS")))))
(defvar smoke-cmd (split-string (or (getenv "GROUNDLS_CMD") "groundls serve")))
(defvar smoke-timeout (string-to-number (or (getenv "GROUNDLS_SMOKE_TIMEOUT_S") "240")))

(defun smoke-out (fmt &rest args)
  (princ (concat "[emacs] " (apply #'format fmt args) "\n")))

;; The fixture is not a VCS checkout: tell project.el (and so eglot) where the workspace is.
(add-hook 'project-find-functions (lambda (_dir) (cons 'transient smoke-ws)))
;; One server for the code and the doc page: Emacs 28 has no markdown-mode, so a .md file is
;; put in markdown-mode where it exists and in text-mode otherwise; both are listed.
(defvar smoke-doc-mode (if (fboundp 'markdown-mode) 'markdown-mode 'text-mode))
(setq eglot-server-programs (list (cons '(python-mode markdown-mode text-mode) smoke-cmd))
      eglot-sync-connect 60
      eglot-connect-timeout 120
      eglot-autoshutdown nil
      python-indent-guess-indent-offset nil)

(defun smoke-command (server name arg)
  (jsonrpc-request server :workspace/executeCommand
                   (list :command name :arguments (vector arg)) :timeout 120))

(defun smoke-check (condition what)
  (unless condition (error "Check failed: %s" what)))

(defun smoke-place (xref)
  "XREF's place as FILE:LINE, FILE relative to the workspace."
  (let* ((loc (xref-item-location xref))
         (file (xref-location-group loc)))
    ;; eglot 1.9 unhexes a URI's path without decoding it: docs/ja/休暇.md comes as raw bytes
    ;; (a unibyte string, or eight-bit characters in a multibyte one); raw bytes encode to
    ;; themselves, decoded characters to their UTF-8, so the round trip decodes both
    (setq file (decode-coding-string (encode-coding-string file 'utf-8) 'utf-8))
    (format "%s:%s" (file-relative-name file smoke-ws) (xref-location-line loc))))

(defun smoke-xrefs (command &rest args)
  "Run the xref COMMAND as its key does and return the places it lists.
ARGS are its arguments; without them it is called interactively,
never prompting.  The places are FILE:LINE, in the command's order."
  (let* ((found :none)
         (xref-show-xrefs-function (lambda (fetcher _alist) (setq found (funcall fetcher))))
         (xref-prompt-for-identifier nil)
         (this-command command))
    (if args (apply command args) (call-interactively command))
    (smoke-check (listp found) (format "%s listed something" command))
    (mapcar #'smoke-place found)))

(defun smoke-goto (line column)
  (goto-char (point-min))
  (forward-line (1- line))
  (forward-char column))

(condition-case err
    (let ((start (float-time)))
      ;; a doc page that names the function as code (as smoke.lua writes it)
      (with-temp-file (expand-file-name "docs/discounts.md" smoke-ws)
        (insert "# Discounts\n\nUse `apply_discount` to take a percentage off a subtotal.\n"))
      (find-file (expand-file-name "src/billing/invoice.py" smoke-ws))
      (python-mode)
      (apply #'eglot (eglot--guess-contact))
      (let* ((server (eglot--current-server-or-lose))
             (status nil)
             (deadline (+ (float-time) smoke-timeout)))
        (smoke-out "initialized in %.1f s" (- (float-time) start))
        ;; wait for the background index; groundls.status answers while indexing
        (while (progn
                 (setq status (aref (plist-get (smoke-command server "groundls.status"
                                                               (make-hash-table))
                                               :folders)
                                    0))
                 (and (not (eq (plist-get status :indexing) :json-false))
                      (< (float-time) deadline)))
          (sleep-for 0.5))
        (smoke-check (eq (plist-get status :indexing) :json-false) "indexing finished")
        (smoke-out "indexed %s files, %s chunks in %.1f s"
                   (plist-get status :files) (plist-get status :chunks) (- (float-time) start))
        ;; groundls.search
        (let* ((res (smoke-command server "groundls.search" '(:query "sales tax rate" :k 5)))
               (hits (append (plist-get res :hits) nil))
               (paths (mapcar (lambda (h) (plist-get h :path)) hits)))
          (smoke-out "groundls.search -> %S" paths)
          (smoke-check hits "search returned hits")
          (smoke-check (member "docs/billing.md" paths) "docs/billing.md among the hits")
          (dolist (p paths) (smoke-check (not (string-prefix-p "/" p)) "relative paths")))
        ;; groundls.similar at the chunk under point
        (goto-char (point-min))
        (forward-line 17)
        (let* ((res (smoke-command server "groundls.similar"
                                   (list :uri (eglot--path-to-uri buffer-file-name)
                                         :position (list :line 17 :character 4))))
               (source (plist-get res :source))
               (hits (append (plist-get res :hits) nil)))
          (smoke-check (equal (plist-get source :path) "src/billing/invoice.py") "similar source")
          (smoke-check hits "similar returned hits")
          (dolist (h hits)
            (smoke-check (not (equal (plist-get h :chunkId) (plist-get source :chunkId)))
                         "similar excludes the chunk itself"))
          (smoke-out "groundls.similar(%s) -> %s:%s" (plist-get source :title)
                     (plist-get (car hits) :path) (plist-get (car hits) :startLine)))
        ;; hover at the same place
        (forward-char 4)
        (let* ((t0 (float-time))
               (hov (jsonrpc-request server :textDocument/hover
                                     (eglot--TextDocumentPositionParams) :timeout 60))
               (ms (* 1000 (- (float-time) t0)))
               (text (plist-get (plist-get hov :contents) :value)))
          (smoke-check (stringp text) "hover returned Markdown")
          (smoke-check (string-match-p "Related in this workspace" text) "hover heading")
          (smoke-check (string-match-p "#L[0-9]+" text) "hover line links")
          (smoke-check (string-match-p "Tested in" text) "hover names the test")
          (smoke-check (string-match-p "Called from" text) "hover names the caller")
          (smoke-out "hover (%.1f ms round trip):\n%s" ms text))
        ;; the xref commands eglot backs, as M-x xref-find-apropos, M-? and M-. run them
        (let ((symbols (smoke-xrefs #'xref-find-apropos "apply_discount")))
          (smoke-out "xref-find-apropos(apply_discount) [workspace/symbol] -> %s"
                     (string-join symbols ", "))
          (smoke-check (equal (car symbols) "src/billing/invoice.py:17")
                       "apropos lists the definition first"))
        (smoke-goto 17 5)                 ; on the name in `def apply_discount('
        (let ((refs (smoke-xrefs #'xref-find-references)))
          (smoke-out "xref-find-references(apply_discount) [textDocument/references] -> %s"
                     (string-join refs ", "))
          (dolist (want '("src/billing/invoice.py:28" "tests/test_invoice.py:8"
                          "docs/discounts.md:3"))
            (smoke-check (member want refs) (concat "references list " want))))
        (find-file (expand-file-name "docs/discounts.md" smoke-ws))
        (funcall smoke-doc-mode)
        (smoke-check (and (eglot-managed-p) (eq (eglot-current-server) server))
                     (format "eglot manages docs/discounts.md (%s) with the same server"
                             smoke-doc-mode))
        (smoke-goto 3 7)                  ; inside `apply_discount'
        (let* ((show xref-show-definitions-function)
               (defs :none)
               (xref-show-definitions-function
                (lambda (fetcher alist)
                  (setq defs (funcall fetcher))
                  (funcall show (lambda () defs) alist)))
               (xref-prompt-for-identifier nil)
               (this-command 'xref-find-definitions))
          (call-interactively #'xref-find-definitions)
          (smoke-check (listp defs) "xref-find-definitions listed something")
          (let* ((buf (window-buffer (selected-window)))
                 (landed (with-current-buffer buf
                           (format "%s:%d" (file-relative-name (or buffer-file-name
                                                                   (buffer-name))
                                                               smoke-ws)
                                   (line-number-at-pos (window-point))))))
            (smoke-out (concat "xref-find-definitions at docs/discounts.md:3 (%s) "
                               "[textDocument/definition] -> %s; landed in %s")
                       smoke-doc-mode (string-join (mapcar #'smoke-place defs) ", ") landed)
            (smoke-check (equal landed "src/billing/invoice.py:17")
                         "the definition from the Markdown span lands at invoice.py:17")))
        (eglot-shutdown server)
        (smoke-out "PASS")
        (kill-emacs 0)))
  (error (smoke-out "FAIL: %S" err) (kill-emacs 1)))
