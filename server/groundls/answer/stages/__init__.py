"""The stages of an answer: the rewrite and follow-up of a question, the excerpts' focus and prompt, choose, write and check."""
