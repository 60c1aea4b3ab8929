"""A VLM-grounder episode end to end against a local OpenAI-compatible server."""

from __future__ import annotations

from openai_server import start_fake_openai, truth_responder

from grounders.vlm import VLMConfig, VLMGrounder
from scene_graphs.registry import make_world
from toolkit.agents.viplan import ViPlanGrounderConfig, run_viplan_grounder
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.planners import get_planner
from toolkit.questions import QuestionBook
from toolkit.task import load_task


def simple_world():
    """A Blocksworld world and a fake-VLM reply function that answers from its true state."""
    task = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_1"))
    book = QuestionBook(task)
    world = make_world(task)
    world.reset()

    def truth(question: str) -> bool | None:
        atom = book.atom_for_question(question)
        return None if atom is None else atom in world.true_state()

    return world, book, truth_responder(truth)


def fake_vlm(book: QuestionBook, server) -> VLMGrounder:
    return VLMGrounder(book, VLMConfig(model="fake-vlm", base_url=server.base_url, api_key="sk-test",
                                       max_retries=1, backoff_base=0.01))


def test_viplan_grounder_episode_through_real_http():
    world, book, responder = simple_world()
    with start_fake_openai(responder) as server:
        result = run_viplan_grounder(world, fake_vlm(book, server), get_planner(), ViPlanGrounderConfig(max_steps=20))
        assert result.success, result.stop_reason
        assert result.ledger.questions == len(server.requests) > 0
        assert result.ledger.correct == result.ledger.answered
        # every request carried the image and a real question with its question mark
        body = server.requests[0]
        assert any(p.get("type") == "image_url" for p in body["messages"][-1]["content"])


def test_pgt_grounder_episode_through_real_http():
    from toolkit.agents.belief_agent import BeliefAgentConfig, run_belief_agent

    world, book, responder = simple_world()
    with start_fake_openai(responder) as server:
        result = run_belief_agent(world, fake_vlm(book, server), get_planner(), BeliefAgentConfig(max_steps=20))
        assert result.success, result.stop_reason
        assert result.ledger.questions == len(server.requests) > 0
        assert result.ledger.correct == result.ledger.answered
