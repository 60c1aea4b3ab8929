; Objects named like their types ("character - character"), as scene exports write them.
(define (domain clash-object-type)
  (:requirements :strips :typing)
  (:types character room)
  (:predicates (in ?c - character ?r - room) (adjacent ?a - room ?b - room))
  (:action move
    :parameters (?c - character ?from - room ?to - room)
    :precondition (and (in ?c ?from) (adjacent ?from ?to))
    :effect (and (in ?c ?to) (not (in ?c ?from)))))
