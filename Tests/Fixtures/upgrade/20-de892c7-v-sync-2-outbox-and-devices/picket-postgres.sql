--
-- PostgreSQL database dump
--

\restrict CiWK6lTWAwTSrR8GeTcDU2qxcXmTlpiSrdCzfkBTFTLjaIN0hclqLfDVSasriHK

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: picket_action; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.picket_action (
    id text NOT NULL,
    employer_id text NOT NULL,
    organization text,
    action_type text NOT NULL,
    location text,
    start_date timestamp with time zone NOT NULL,
    end_date timestamp with time zone,
    duration_days bigint,
    description text,
    demands text,
    contact_info text,
    more_info_url text,
    latitude double precision,
    longitude double precision,
    notification_radius bigint,
    status text NOT NULL,
    origin text NOT NULL,
    submitted_at timestamp with time zone NOT NULL,
    moderated_at timestamp with time zone
);


--
-- Name: picket_api_key; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.picket_api_key (
    id text NOT NULL,
    hash text NOT NULL,
    scopes text NOT NULL,
    label text,
    created_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone
);


--
-- Name: picket_employer; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.picket_employer (
    id text NOT NULL,
    name text NOT NULL,
    industry text,
    website text,
    status text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: picket_employer_domain; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.picket_employer_domain (
    employer_id text NOT NULL,
    domain text NOT NULL
);


--
-- Name: picket_location; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.picket_location (
    id text NOT NULL,
    employer_id text NOT NULL,
    action_id text,
    kind text NOT NULL,
    name text,
    location_type text,
    address text,
    latitude double precision NOT NULL,
    longitude double precision NOT NULL,
    notification_radius bigint,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: picket_moderation; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.picket_moderation (
    id bigint NOT NULL,
    submission_id text NOT NULL,
    kind text NOT NULL,
    decision text NOT NULL,
    moderator text NOT NULL,
    reason text,
    decided_at timestamp with time zone NOT NULL,
    summary text NOT NULL
);


--
-- Name: picket_moderation_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.picket_moderation_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: picket_moderation_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.picket_moderation_id_seq OWNED BY public.picket_moderation.id;


--
-- Name: picket_schema_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.picket_schema_version (
    version text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: picket_setting; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.picket_setting (
    key text NOT NULL,
    value text NOT NULL
);


--
-- Name: picket_snapshot; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.picket_snapshot (
    id text NOT NULL,
    action_id text NOT NULL,
    latitude double precision NOT NULL,
    longitude double precision NOT NULL,
    address text,
    notes text,
    status text NOT NULL,
    submitted_at timestamp with time zone NOT NULL,
    moderated_at timestamp with time zone
);


--
-- Name: picket_state; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.picket_state (
    id integer NOT NULL,
    content_revision bigint NOT NULL,
    keys_revision bigint NOT NULL,
    content_changed_at timestamp with time zone,
    CONSTRAINT picket_state_id_check CHECK ((id = 1))
);


--
-- Name: picket_moderation id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_moderation ALTER COLUMN id SET DEFAULT nextval('public.picket_moderation_id_seq'::regclass);


--
-- Data for Name: picket_action; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.picket_action (id, employer_id, organization, action_type, location, start_date, end_date, duration_days, description, demands, contact_info, more_info_url, latitude, longitude, notification_radius, status, origin, submitted_at, moderated_at) FROM stdin;
act_upgrade	emp_upgrade	Fixture Workers United	strike	Seattle, WA	2026-01-01 00:00:00+00	\N	\N	On strike until the fixture is read	\N	\N	\N	47.61	-122.34	\N	approved	import	2026-11-28 16:07:10.861298+00	2026-11-28 16:07:10.861298+00
act_demo_brightmart	emp_demo_brightmart	Retail Workers United Local 21	strike	BrightMart, 400 Pine St, Seattle, WA	2026-11-18 16:07:12.812758+00	2026-12-28 16:07:12.812758+00	40	Store workers are on strike for safe staffing and a fair contract.	Safe staffing levels; a $25 minimum wage; no retaliation.	\N	https://rwu21.example/brightmart	47.6114	-122.3375	\N	approved	import	2026-11-18 16:07:12.812758+00	2026-11-18 16:07:12.812758+00
act_demo_northwind	emp_demo_northwind	Warehouse Workers Alliance	picket	Northwind distribution centre, Chicago, IL	2026-11-18 16:07:12.812758+00	2026-12-28 16:07:12.812758+00	\N	Picket line at the distribution centre gates, 6 am to 6 pm.	Heat protection; paid breaks.	\N	\N	41.85	-87.65	\N	approved	import	2026-11-18 16:07:12.812758+00	2026-11-18 16:07:12.812758+00
act_demo_harbor	emp_demo_harbor	Baristas United	boycott	New York, NY	2026-11-18 16:07:12.812758+00	\N	\N	Customer boycott until the union is recognised.	\N	\N	\N	40.7128	-74.006	\N	approved	import	2026-11-18 16:07:12.812758+00	2026-11-18 16:07:12.812758+00
act_demo_harbor_london	emp_demo_harbor	Baristas United UK	protest	Harbor Coffee, Oxford Street, London	2026-11-18 16:07:12.812758+00	2026-12-28 16:07:12.812758+00	\N	Solidarity protest outside the flagship shop.	\N	\N	\N	51.5154	-0.141	\N	approved	import	2026-11-18 16:07:12.812758+00	2026-11-18 16:07:12.812758+00
act_demo_summit	emp_demo_summit	Hotel Workers Local 8	strike	Summit Hotel, Seattle, WA	2026-12-05 16:07:12.812758+00	2026-12-12 16:07:12.812758+00	\N	Strike vote passed; the strike starts next week.	\N	\N	\N	47.6097	-122.3331	\N	approved	import	2026-11-18 16:07:12.812758+00	2026-11-18 16:07:12.812758+00
act_demo_pending	emp_demo_summit	Hotel Workers Local 8	picket	Summit Hotel Bellevue, WA	2026-11-27 16:07:12.812758+00	2026-12-28 16:07:12.812758+00	\N	Informational picket (submitted from the app, waiting for a moderator).	\N	\N	\N	47.6101	-122.2015	\N	pending	submission	2026-11-28 15:07:12.812758+00	\N
act_3e0fa96ed2cc	emp_880f48d7f8cc	Fixture Local 1	strike	Tacoma, WA	2026-02-01 00:00:00+00	\N	\N	Submitted by the upgrade fixture	\N	\N	\N	\N	\N	\N	approved	submission	2026-11-28 16:07:13.380082+00	2026-11-28 16:07:14.171058+00
\.


--
-- Data for Name: picket_api_key; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.picket_api_key (id, hash, scopes, label, created_at, revoked_at) FROM stdin;
key_7dfaf2d04f6e	81e5b5ba31c3bc1716ee8f3d209964785ad84305e72c64f730a4c22b311b53b4	read:blocklist read:mobile write:gps-snapshot write:submit-strike	upgrade-fixture	2026-11-28 16:07:11.769937+00	\N
key_a6301b91e8f0	03d0cd278ee11be4041be862b28718fb282c8d41e305bd06ddf30116bc3b6540	read:mobile write:gps-snapshot write:submit-strike	demo mobile apps	2026-11-28 16:07:12.850788+00	\N
key_5781d483580f	79245603e046dad1edf7efd99b67d01e8947e50829b8d45aec651fd0eb24f7f4	read:mobile	demo read	2026-11-28 16:07:12.857313+00	\N
key_a90bdf524a72	40a6879b8cf45aafb33d77919eded08cb8eb64e51a432e94ed7e02d2e67f9693	write:gps-snapshot write:submit-strike	demo write	2026-11-28 16:07:12.858881+00	\N
\.


--
-- Data for Name: picket_employer; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.picket_employer (id, name, industry, website, status, created_at) FROM stdin;
emp_upgrade	Upgrade Fixture Corp	\N	https://struck.upgrade.test	approved	2026-11-28 16:07:10.861298+00
emp_demo_brightmart	BrightMart	Retail	https://www.brightmart.example	approved	2026-11-18 16:07:12.812758+00
emp_demo_northwind	Northwind Logistics	Warehousing	https://northwind.example	approved	2026-11-18 16:07:12.812758+00
emp_demo_harbor	Harbor Coffee Co.	Food service	https://harborcoffee.example	approved	2026-11-18 16:07:12.812758+00
emp_demo_summit	Summit Hotels	Hospitality	https://summithotels.example	approved	2026-11-18 16:07:12.812758+00
emp_880f48d7f8cc	Submitted Fixture Inc	\N	https://submitted.upgrade.test	approved	2026-11-28 16:07:13.380082+00
\.


--
-- Data for Name: picket_employer_domain; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.picket_employer_domain (employer_id, domain) FROM stdin;
emp_upgrade	struck.upgrade.test
emp_demo_brightmart	brightmart-deals.example
emp_demo_brightmart	brightmart.example
emp_demo_northwind	northwind.example
emp_demo_harbor	harborcoffee.example
emp_demo_harbor	order.harborcoffee.example
emp_demo_summit	summithotels.example
emp_880f48d7f8cc	submitted.upgrade.test
\.


--
-- Data for Name: picket_location; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.picket_location (id, employer_id, action_id, kind, name, location_type, address, latitude, longitude, notification_radius, created_at) FROM stdin;
loc_upgrade_gate	emp_upgrade	act_upgrade	picket-site	Main gate	\N	\N	47.612	-122.331	\N	2026-11-28 16:07:10.861298+00
loc_demo_brightmart_gate	emp_demo_brightmart	act_demo_brightmart	picket-site	Loading dock on 4th Ave	\N	\N	47.6109	-122.339	\N	2026-11-18 16:07:12.812758+00
loc_demo_brightmart_tacoma	emp_demo_brightmart	\N	employer-location	BrightMart Tacoma	store	1100 Market St, Tacoma, WA	47.2529	-122.4443	\N	2026-11-18 16:07:12.812758+00
loc_demo_brightmart_bellevue	emp_demo_brightmart	\N	employer-location	BrightMart Bellevue	store	\N	47.615	-122.201	\N	2026-11-18 16:07:12.812758+00
loc_demo_northwind_gate	emp_demo_northwind	act_demo_northwind	picket-site	North gate	\N	\N	41.8512	-87.6489	\N	2026-11-18 16:07:12.812758+00
site_7b192669853d	emp_upgrade	act_upgrade	picket-site	Picket at the main gate	\N	\N	47.6121	-122.3312	\N	2026-11-28 16:07:14.971629+00
\.


--
-- Data for Name: picket_moderation; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.picket_moderation (id, submission_id, kind, decision, moderator, reason, decided_at, summary) FROM stdin;
1	act_3e0fa96ed2cc	strike	approve	cli	\N	2026-11-28 16:07:14.171058+00	Submitted Fixture Inc
2	snap_7b192669853d	snapshot	approve	cli	\N	2026-11-28 16:07:14.971629+00	Upgrade Fixture Corp (act_upgrade)
\.


--
-- Data for Name: picket_schema_version; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.picket_schema_version (version, applied_at) FROM stdin;
v-picket-1-server-and-policy	2026-11-28 16:07:10.914818+00
v-picket-2-moderation-log	2026-11-28 16:07:10.914818+00
v-picket-3-content-time	2026-11-28 16:07:10.914818+00
\.


--
-- Data for Name: picket_setting; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.picket_setting (key, value) FROM stdin;
\.


--
-- Data for Name: picket_snapshot; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.picket_snapshot (id, action_id, latitude, longitude, address, notes, status, submitted_at, moderated_at) FROM stdin;
snap_7b192669853d	act_upgrade	47.6121	-122.3312	\N	Picket at the main gate	approved	2026-11-28 16:07:14.252667+00	2026-11-28 16:07:14.971629+00
\.


--
-- Data for Name: picket_state; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.picket_state (id, content_revision, keys_revision, content_changed_at) FROM stdin;
1	5	5	2026-11-28 16:07:14.972229+00
\.


--
-- Name: picket_moderation_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.picket_moderation_id_seq', 2, true);


--
-- Name: picket_action picket_action_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_action
    ADD CONSTRAINT picket_action_pkey PRIMARY KEY (id);


--
-- Name: picket_api_key picket_api_key_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_api_key
    ADD CONSTRAINT picket_api_key_hash_key UNIQUE (hash);


--
-- Name: picket_api_key picket_api_key_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_api_key
    ADD CONSTRAINT picket_api_key_pkey PRIMARY KEY (id);


--
-- Name: picket_employer_domain picket_employer_domain_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_employer_domain
    ADD CONSTRAINT picket_employer_domain_pkey PRIMARY KEY (employer_id, domain);


--
-- Name: picket_employer picket_employer_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_employer
    ADD CONSTRAINT picket_employer_pkey PRIMARY KEY (id);


--
-- Name: picket_location picket_location_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_location
    ADD CONSTRAINT picket_location_pkey PRIMARY KEY (id);


--
-- Name: picket_moderation picket_moderation_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_moderation
    ADD CONSTRAINT picket_moderation_pkey PRIMARY KEY (id);


--
-- Name: picket_schema_version picket_schema_version_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_schema_version
    ADD CONSTRAINT picket_schema_version_pkey PRIMARY KEY (version);


--
-- Name: picket_setting picket_setting_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_setting
    ADD CONSTRAINT picket_setting_pkey PRIMARY KEY (key);


--
-- Name: picket_snapshot picket_snapshot_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_snapshot
    ADD CONSTRAINT picket_snapshot_pkey PRIMARY KEY (id);


--
-- Name: picket_state picket_state_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_state
    ADD CONSTRAINT picket_state_pkey PRIMARY KEY (id);


--
-- Name: picket_action_by_employer; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX picket_action_by_employer ON public.picket_action USING btree (employer_id);


--
-- Name: picket_action_by_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX picket_action_by_status ON public.picket_action USING btree (status, end_date);


--
-- Name: picket_employer_by_name; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX picket_employer_by_name ON public.picket_employer USING btree (lower(name));


--
-- Name: picket_location_by_action; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX picket_location_by_action ON public.picket_location USING btree (action_id);


--
-- Name: picket_location_by_employer; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX picket_location_by_employer ON public.picket_location USING btree (employer_id);


--
-- Name: picket_moderation_by_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX picket_moderation_by_time ON public.picket_moderation USING btree (decided_at);


--
-- Name: picket_snapshot_by_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX picket_snapshot_by_status ON public.picket_snapshot USING btree (status, submitted_at);


--
-- Name: picket_action picket_action_employer_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_action
    ADD CONSTRAINT picket_action_employer_id_fkey FOREIGN KEY (employer_id) REFERENCES public.picket_employer(id) ON DELETE CASCADE;


--
-- Name: picket_employer_domain picket_employer_domain_employer_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_employer_domain
    ADD CONSTRAINT picket_employer_domain_employer_id_fkey FOREIGN KEY (employer_id) REFERENCES public.picket_employer(id) ON DELETE CASCADE;


--
-- Name: picket_location picket_location_action_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_location
    ADD CONSTRAINT picket_location_action_id_fkey FOREIGN KEY (action_id) REFERENCES public.picket_action(id) ON DELETE CASCADE;


--
-- Name: picket_location picket_location_employer_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_location
    ADD CONSTRAINT picket_location_employer_id_fkey FOREIGN KEY (employer_id) REFERENCES public.picket_employer(id) ON DELETE CASCADE;


--
-- Name: picket_snapshot picket_snapshot_action_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.picket_snapshot
    ADD CONSTRAINT picket_snapshot_action_id_fkey FOREIGN KEY (action_id) REFERENCES public.picket_action(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict CiWK6lTWAwTSrR8GeTcDU2qxcXmTlpiSrdCzfkBTFTLjaIN0hclqLfDVSasriHK

