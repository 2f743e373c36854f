"""The words the proper-noun miner reads around a name (``world_names``): cues of a person,
a place or a deity invoked, place words, and the capitalized words that are no name of the
game's world. Lower-case cue words are compared with the lower-cased word before or after a
name; capitalized ones with a name's words as written. ``docs/extraction.md`` ("The
proper-noun miner") gives them with examples.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    """The words of ``text``, one space apart."""
    return frozenset(text.split())


def _terms(text: str) -> frozenset[str]:
    """The terms of ``text``, ``|`` apart."""
    return frozenset(text.split("|"))


# Before a person: a title, "named", a greeting, a verb said to someone ("ask Talwyn").
PERSON_BEFORE = _words(
    "ask asked asks aunt baron baroness brother captain chief commander count countess "
    "cousin dame dear duchess duke elder father general greet greets hello hey hi king "
    "lady lord madam master meet met miss mister mother mr mrs ms named prince princess "
    "queen sheriff sir sister tell tells thank thanks told uncle "
    # what is done to someone, never to a place ("grab Marius", "protect Marius")
    "attack attacks grab grabs heal heals hug kick kill kills killed protect punch stab "
    "tackle "
    # who someone is: "your friend, Balgus", "a half-orc, Bo", "a little girl, Layla"
    "aasimar apprentice barkeep bartender boy child daughter dragonborn dwarf elf firbolg "
    "friend genasi girl gnome goliath guard half-elf half-orc halfling human husband "
    "innkeeper kid man orc owner son tiefling wife woman "
    # whom one knows: "do you know Sabian?", "we know Ionos" (C2E035)
    "knew know knows"
)
# After a person: a speech or gesture verb, "who", a pronoun ("Talwyn nods", "Talwyn, he...").
PERSON_AFTER = _words(
    "answers asked asks continues exclaims glances goes grins hands he herself himself "
    "laughed laughs leans look looked looks nodded nods pauses pulls reaches replied replies "
    "responds said says shakes she shouts shrugs sighs sits smiled smiles speaks stands "
    "steps tells told turned turns walked walks whispers who yells "
    # what someone does in a fight ("Marius fails", "Marius misses")
    "dies fails misses"
)
# Before a place: "in Emon", "towards Westruun", "leave Kraghammer".
PLACE_BEFORE = _words(
    "across arrive from in inside into leave left near outside reach reached through "
    "throughout toward towards visit visited within"
)
# Two words before a place said once is enough: "welcome to Wildemount".
PLACE_TWO = frozenset(["welcome to"])
# After a place: "the Leaky Tap tavern", "Kraghammer proper", "Zadash, where...".
PLACE_AFTER = _words("city district inn keep proper tavern town where")
# After a family's name said as a word of a thing of theirs: "the Vedmeyer estate".
FAMILY_AFTER = _words("estate family household residence")
# A direction before a name makes a place ("Western Wynandir").
DIRECTIONS = _words("Eastern Lower Northern Southern Upper Western")
# A group's word closing a name, or "House" opening it, makes a faction, a guild or a
# family: no person and no place ("the Crown's Guard", "the Chroma Conclave", "House
# Thunderbrand").
GROUP_LAST = _words(
    "Alliance Army Assembly Brotherhood Cabal Clan Clasp Collective Company Conclave "
    "Consortium Council Crew Cult Guard Guards Guild Knights Legion Order Pact "
    "Sisterhood Society "
    "Syndicate Tribe Union"
)
GROUP_FIRST = _words("House")
# Things one holds: a name said beside one is the thing's ("the bow of Fenthras", "the
# Fenthras bow", "a certain bow, Fenthras").
ITEM_WORDS = _words(
    "amulet armor axe blade bow cloak crown dagger greataxe greatsword hammer helm lance "
    "longbow longsword mace necklace ring scimitar shield spear staff sword wand"
)
# Before a spell or a feature someone uses ("You cast the Glacial Blast").
CAST = _words("cast casting casts")
# A deity invoked: "by Sarenrae", "pray to Pelor", ...
DEITY_BEFORE = _words("bless by god goddess praise pray prayed prayer praying")
# ... "Traveler, guide me", "Pelor bless".
DEITY_AFTER = _words("bless guide help preserve protect save watch willing")
# Two words before a place: "the city of Emon", "the streets of Zadash".
PLACE_OF = _words(
    "city town village kingdom land lands realm streets outskirts capital ruler rulers "
    "people edge gates walls heart region country continent island port district"
)
# Two words before a deity: "a cleric of Pelor", "the temple of Sarenrae".
DEITY_OF = _words(
    "cleric clerics priest priestess priests temple church paladin follower followers faith"
)
# A place word after a name's first word makes a place ("Firebrook Inn", "Wuyun Gorge").
PLACE_WORDS = _words(
    "Abode Academy Alley Archive Archives Arena Barrow Bay Bog Bridge Brewery Camp Canyon "
    "Castle Catacombs Cathedral Cave Caverns Caves Chapel Chateau Citadel City Cliffs "
    "Coast Cove Crossing Crypt Desert District Docks Empire Emporium Estate Estates Falls "
    "Fields Forest Fortress Gardens Gate "
    "Gates Glade Gorge Grove Hall Halls Harbor Harbour Hills Hold Hollow Inn Island "
    "Islands Isle Isles Keep Kingdom Lake Lane Library Manor Market Marketplace Marsh Moor "
    "Mine Mines Mountain Mountains Nook Ocean Outpost Palace Pass Peak Peaks Pillow Pits "
    "Plains Port Prison Quarter Quay Reach Ridge River Road Row Sanctum Sea Sewers Shop "
    "Shrine Spire Sprawl Square Street Swamp Take Tavern Temple Terrace Tomb Tower Town "
    "Trove Vale Valley Village Ward Wastes Wharf Wood Woods"
)
# Languages (and the demonyms said as one: "Dwarven").
LANGUAGES = _words(
    "Abyssal Celestial Common Draconic Druidic Dwarven Dwarvish Elven Elvish Giant "
    "Gnomish Goblin Halfling Infernal Orc Primordial Sylvan Thieves Undercommon Zemnian"
)
# Capitalized words that are no name of the world: days, months, oaths, interjections,
# forms of address, the show, alignments, abilities and skills.
NOT_NAMES = _words(
    "Acrobatics Advantage Ah Ahh Alright April Arcana Athletics August Awesome Aye Bye "
    "Cant Chaotic Charisma Cheers Christ Constitution Cool Critical Dad Damn December Deception "
    "Dexterity Disadvantage Discord Dragons Dude Dungeon Dungeons Evasion Evil February "
    "Friday Fuck Gentlemen God Goddamn Gods Good Goodbye Great Guys Hello Hey Hi History "
    "Hmm Holy Huh Initiative Insight Inspiration Intelligence Internet Intimidation "
    "Investigation January Jesus July June Ki Ladies Lawful Lord Madam Mama Man March May "
    "Medicine Metamagic Miss Mister Mom Monday Nature Neutral Nice Nope November October "
    "Oh Ok Okay Ooh Papa Patreon Perception Performance Persuasion Please Rage Religion Right "
    "Role Saturday September Sharpshooter Shit Sir Sorry Stealth Strength Sunday Sure "
    "Survival Thanks Thursday Tuesday Twitch Ugh Uh Um Wednesday Well Whoa Wisdom Woo Wow "
    "Yeah Yep Yes YouTube Youtube"
)
# The game's own terms of several words: class and race features, rules.
GAME_TERMS = _terms(
    "Action Surge|Arcane Recovery|Armor Class|Bardic Inspiration|Channel Divinities|"
    "Channel Divinity|Colossus Slayer|Cunning Action|Cutting Words|Death Saves|"
    "Deflect Missiles|Divine Sense|Divine Smite|Dungeon Master|Dungeons and Dragons|"
    "Favored Enemy|Flurry of Blows|Font of Magic|Game Master|Great Weapon Master|"
    "Hexblade's Curse|Hit Points|Lay on Hands|Patient Defense|Primal Fury|Quickened Spell|"
    "Reckless Attack|Relentless Endurance|Saving Throw|Second Wind|Sneak Attack|"
    "Sorcery Points|Stunning Strike|Turn Undead|Twinned Spell|Uncanny Dodge|Wild Shape|"
    # Class features and spells of the other rule books (not in the SRD's catalogs).
    "Absorb Elements|Arcane Ward|Booming Blade|Chaos Bolt|Divine Fury|Grasping Vine|"
    "Green-Flame Blade|Healing Spirit|Ice Knife|Sapping Sting|Tides of Chaos|"
    "Unarmored Defense|Wild Magic|Zephyr Strike"
)
# The party's own group names: the players' table, no place or person of the story.
PARTY_GROUPS = _terms("Vox Machina|Mighty Nein")
# Before a thing someone has ("my Transmuter's Stone", "your Magician's Judge"): an item
# or a feature, when said so at least half the time.
POSSESSIVES = _words("my your his her their our its")
