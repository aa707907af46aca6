;;; smoke.el --- real-editor smoke test: Emacs eglot drives `groundls serve' -*- lexical-binding: t -*-
;; Run: GROUNDLS_SMOKE_WS=<copy of tests/fixtures/lsp_ws> timeout 300 emacs --batch -l smoke.el
;; Optional: GROUNDLS_CMD (default "groundls serve"), GROUNDLS_SMOKE_TIMEOUT_S (default 240).
;; Works with Emacs 28.2 + Debian's elpa-eglot 1.9 and with the eglot built into Emacs 29+.
(package-initialize)                     ; puts Debian's elpa-eglot on the load path
(require 'eglot)
(require 'python)

(defvar smoke-ws (file-name-as-directory
                  (expand-file-name (or (getenv "GROUNDLS_SMOKE_WS")
                                        (error "Set GROUNDLS_SMOKE_WS")))))
(defvar smoke-cmd (split-string (or (getenv "GROUNDLS_CMD") "groundls serve")))
(defvar smoke-timeout (string-to-number (or (getenv "GROUNDLS_SMOKE_TIMEOUT_S") "240")))

(defun smoke-out (fmt &rest args)
  (princ (concat "[emacs] " (apply #'format fmt args) "\n")))

;; The fixture is not a VCS checkout: tell project.el (and so eglot) where the workspace is.
(add-hook 'project-find-functions (lambda (_dir) (cons 'transient smoke-ws)))
(setq eglot-server-programs (list (cons 'python-mode smoke-cmd))
      eglot-sync-connect 60
      eglot-connect-timeout 120
      eglot-autoshutdown nil
      python-indent-guess-indent-offset nil)

(defun smoke-command (server name arg)
  (jsonrpc-request server :workspace/executeCommand
                   (list :command name :arguments (vector arg)) :timeout 120))

(defun smoke-check (condition what)
  (unless condition (error "Check failed: %s" what)))

(condition-case err
    (let ((start (float-time)))
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
        (eglot-shutdown server)
        (smoke-out "PASS")
        (kill-emacs 0)))
  (error (smoke-out "FAIL: %S" err) (kill-emacs 1)))
