"""The chat model: which one answers, and which of its errors mean "the LLM is down".

``factory`` builds the model ``Settings`` selects (``make_chat_model``) and classifies its
errors (``classify_llm_error``); ``openai_fast/`` is the lean OpenAI streaming client,
used when its fast path is on and its dependencies are the tested versions
(``partchat.fast_paths``), else stock ``ChatOpenAI`` answers. The graph only sees a
``BaseChatModel``. Imports: settings and ``partchat.fast_paths``; nothing above the agent.
Importing this package loads neither openai_fast nor LangChain's internals.
"""

from partchat.agent.llm.factory import DEFAULT_OPENAI_BASE_URL, classify_llm_error, make_chat_model

__all__ = ["DEFAULT_OPENAI_BASE_URL", "classify_llm_error", "make_chat_model"]
