"""Words that carry no topic of their own in a question: left out of full-text queries
(a union of words would otherwise match every thought holding "to" or "are") and of the
graph expansion's keyword sub-queries."""

STOPWORDS = frozenset(
    """a an the of to in on at for and or but is are was were be been being has have had
    do does did doing what which who whom whose when where why how with his her hers him
    she he they them their theirs its it this that these those as by from about into
    over after before during since until any some many much more most other such than
    too very can could would should will shall may might must not no nor only own same so
    just also both each few all kind kinds type types way ways thing things time times
    ever still yet you your yours me my mine we our ours us i""".split()  # noqa: SIM905
)
