"""Domain vocabularies: the words a generator puts into a template to set a question in a domain.

Every domain in ``taxonomy.KNOWN_DOMAINS`` has a :class:`DomainVocab`. Fields are generic slots (alternatives to
choose among, a project, a pair of chance events, an object and places for false-belief stories, category and
proposition words for logic) so that one template renders in every domain.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DomainVocab:
    name: str
    role: str  # who "you" are
    option_noun: str  # what the alternatives are
    alternatives: tuple[str, ...]  # named alternatives (>= 6)
    counted: tuple[str, str]  # (singular, plural) of a countable thing
    price_item: str  # something bought repeatedly
    project: str  # an ongoing investment one can abandon
    owned_item: str  # an object one can buy or sell (endowment effect)
    chance_events: tuple[tuple[str, str], ...]  # (event happens, event does not happen)
    tom_object: str
    tom_places: tuple[str, ...]  # >= 5 places
    categories: tuple[str, ...]  # plural category nouns for syllogisms (>= 5)
    propositions: tuple[str, ...]  # clauses "the X happens" for conditionals (>= 5)
    urn_story: str  # what a draw from an urn decides


PEOPLE = ("Alice", "Ben", "Chloe", "David", "Emma", "Farid", "Grace", "Hiro", "Isla", "Jonas", "Kavya", "Liam",
          "Maya", "Noah", "Olga", "Pedro", "Quinn", "Rosa", "Sam", "Tara")

VOCABS: dict[str, DomainVocab] = {
    "finance": DomainVocab(
        "finance", "an investor", "investment",
        ("an index fund", "a bond fund", "a savings account", "a tech stock", "a real-estate trust", "a gold fund",
         "a startup stake"),
        ("share", "shares"), "share of stock", "a software startup", "a rare coin",
        (("the market goes up", "the market goes down"), ("the company is acquired", "the company is not acquired"),
         ("interest rates fall", "interest rates do not fall")),
        "the cheque book", ("desk drawer", "safe", "filing cabinet", "briefcase", "bookshelf", "coat pocket"),
        ("brokers", "traders", "advisers", "bankers", "auditors", "analysts"),
        ("interest rates rise", "bond prices fall", "the fund loses value", "investors withdraw money",
         "the bank tightens lending", "the share price drops"),
        "which asset a lucky investor wins"),
    "medical": DomainVocab(
        "medical", "a doctor", "treatment",
        ("physiotherapy", "a new medication", "surgery", "a diet programme", "acupuncture", "a clinical trial drug",
         "watchful waiting"),
        ("pill", "pills"), "doctor's consultation", "a clinical trial", "a medical textbook",
        (("the treatment works", "the treatment does not work"), ("the test is positive", "the test is negative"),
         ("the patient recovers quickly", "the patient recovers slowly")),
        "the patient's chart", ("nurses' station", "cabinet", "doctor's office", "bedside table", "front desk",
                                "supply room"),
        ("surgeons", "nurses", "pharmacists", "therapists", "paramedics", "radiologists"),
        ("the patient has a fever", "the infection spreads", "the doctor prescribes antibiotics",
         "the patient is admitted", "the blood pressure rises", "the nurse calls the surgeon"),
        "which treatment voucher a patient receives"),
    "food": DomainVocab(
        "food", "a restaurant owner", "dish",
        ("a pizza", "a sushi platter", "a vegetable curry", "a beef burger", "a pasta bake", "a salad bowl",
         "a ramen bowl"),
        ("apple", "apples"), "lunch menu", "a new restaurant branch", "a cast-iron pan",
        (("the dish sells out", "the dish does not sell out"), ("the harvest is good", "the harvest is poor"),
         ("the critic likes the meal", "the critic dislikes the meal")),
        "the cake", ("fridge", "pantry", "oven", "cupboard", "picnic basket", "freezer"),
        ("bakers", "chefs", "waiters", "farmers", "grocers", "butchers"),
        ("the oven is hot", "the bread rises", "the cake is ready", "the guests arrive", "the soup boils",
         "the chef adds salt"),
        "which meal voucher a diner wins"),
    "travel": DomainVocab(
        "travel", "a traveler", "trip",
        ("a beach resort", "a ski lodge", "a city break", "a mountain hike", "a river cruise", "a safari",
         "a train tour"),
        ("mile", "miles"), "train ticket", "a hotel renovation", "a vintage suitcase",
        (("the weather is sunny", "the weather is rainy"), ("the flight is on time", "the flight is delayed"),
         ("the snow is good", "the snow is poor")),
        "the passports", ("suitcase", "backpack", "hotel safe", "nightstand", "car glovebox", "desk drawer"),
        ("pilots", "tourists", "guides", "hikers", "sailors", "drivers"),
        ("the flight is delayed", "the connection is missed", "the hotel is booked", "the guide cancels",
         "the train leaves early", "the road is closed"),
        "which holiday voucher a traveler wins"),
    "sports": DomainVocab(
        "sports", "a team coach", "training plan",
        ("a sprint programme", "a strength programme", "an endurance programme", "a skills clinic",
         "a recovery camp", "a tactics course", "a yoga block"),
        ("point", "points"), "tennis lesson", "a new stadium", "a signed jersey",
        (("the team wins", "the team loses"), ("the striker scores", "the striker does not score"),
         ("the player recovers in time", "the player does not recover in time")),
        "the tennis racket", ("locker", "gym bag", "equipment shed", "car trunk", "bench", "coach's office"),
        ("runners", "swimmers", "goalkeepers", "cyclists", "referees", "coaches"),
        ("the team wins", "the coach is happy", "the players get a bonus", "the fans celebrate",
         "the striker scores", "the stadium is full"),
        "which match ticket a fan wins"),
    "education": DomainVocab(
        "education", "a student", "course",
        ("a statistics course", "a history seminar", "a coding bootcamp", "a language class", "a chemistry lab",
         "an art workshop", "a debate club"),
        ("page", "pages"), "textbook", "a new online course", "a graphing calculator",
        (("the exam is easy", "the exam is hard"), ("the scholarship is awarded", "the scholarship is not awarded"),
         ("the essay gets an A", "the essay does not get an A")),
        "the homework", ("school bag", "desk", "bookshelf", "teacher's tray", "kitchen table", "locker"),
        ("students", "teachers", "tutors", "librarians", "graduates", "professors"),
        ("the student studies", "the student passes the exam", "the student graduates", "the teacher is pleased",
         "the class gets a break", "the school wins a prize"),
        "which book prize a student wins"),
    "technology": DomainVocab(
        "technology", "a product manager", "product",
        ("a smartphone", "a laptop", "a smartwatch", "a tablet", "a cloud plan", "a game console", "a drone"),
        ("server", "servers"), "software licence", "a new app", "a vintage computer",
        (("the launch succeeds", "the launch fails"), ("the server stays up", "the server crashes"),
         ("the patent is granted", "the patent is refused")),
        "the laptop", ("desk", "server room", "backpack", "drawer", "meeting room", "shelf"),
        ("engineers", "designers", "testers", "programmers", "founders", "analysts"),
        ("the server crashes", "the app goes offline", "users complain", "the team rolls back the update",
         "the patch is released", "the outage ends"),
        "which gadget a customer wins"),
    "politics": DomainVocab(
        "politics", "a city councillor", "policy",
        ("a park renovation", "a bike-lane plan", "a library expansion", "a tax rebate", "a bus-route extension",
         "a housing programme", "a clean-energy grant"),
        ("vote", "votes"), "campaign poster", "a new civic centre", "a campaign badge",
        (("the bill passes", "the bill fails"), ("turnout is high", "turnout is low"),
         ("the mayor is re-elected", "the mayor is not re-elected")),
        "the ballot box key", ("office drawer", "safe", "town-hall desk", "filing cabinet", "briefcase",
                               "coat pocket"),
        ("senators", "mayors", "voters", "councillors", "delegates", "diplomats"),
        ("the bill passes", "taxes rise", "the budget grows", "the council hires staff", "the park opens",
         "turnout increases"),
        "which civic award a resident receives"),
}


def vocab(domain: str) -> DomainVocab:
    try:
        return VOCABS[domain]
    except KeyError:
        raise ValueError(f"no vocabulary for STEER domain {domain!r}; known: {sorted(VOCABS)}") from None
