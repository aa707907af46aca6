"""Embedding spaces: the models, the one embedding step, served embeddings, the static model and which space embeds which chunk."""
