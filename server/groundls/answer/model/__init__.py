"""The answer model's runtime: loading and streaming llama.cpp, model files, CPU buffers, prompt-reading rates, one loaded model per process, and model servers."""
