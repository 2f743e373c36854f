"""The extraction stage: one narrow question per lane over each extraction chunk, answered
by a model behind any OpenAI-compatible server or by a kind's built-in rules, written as
the raw candidates of ``design/contract.md`` ("Extraction and normalization (v1)").

Generic: what a kind asks and how its answer looks come from its ``ArtifactKind``
(``extraction``: the prompt and rules extractor; ``model_record_schema``: the answer's
shape), never from a domain package. One module a job:

- ``chunks``: the chunk plan of the source document, as ``streamer chunk`` cuts it;
- ``requests``: the request body of one chunk (chunk first, question last; the response
  format of each structured-output mode; ``max_tokens``);
- ``negotiation``: the structured-output mode of a run (``auto`` finds it once);
- ``response_schema``: ``{"records": [model-facing record]}`` and its strict variant;
- ``responses``: validating an answer (a content-safe path and rule when it fails);
- ``transport``: HTTP to the server, concurrency, rate, retries and backoff;
- ``slots``: the requests in flight, lowered when the server queues them;
- ``cache``: validated answers on disk, so that a rerun asks only for what is missing;
- ``candidates``: the candidates files;
- ``run``: a run over every lane, and its receipt.
"""
