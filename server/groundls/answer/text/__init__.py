"""The text checks and repairs of a written answer: citations, grounding, hygiene, the passes that run them, and the answer stage's own wording."""
